import type { Static } from "typebox";
import { Type } from "../llm/schema-builders.js";

const Count = Type.Integer({ minimum: 0 });
const QueueMode = Type.Enum(["all", "one-at-a-time"]);

const RetrySettings = Type.Object({
	enabled: Type.Optional(Type.Boolean()),
	maxRetries: Type.Optional(Count),
	baseDelayMs: Type.Optional(Type.Number({ minimum: 0 })),
	/** Retries inside the provider SDK; Atomic keeps them at 0 and retries itself. */
	provider: Type.Optional(
		Type.Object({ maxRetries: Type.Optional(Count), timeoutMs: Type.Optional(Type.Number({ minimum: 0 })) }),
	),
});

const CompactionSettings = Type.Object({
	enabled: Type.Optional(Type.Boolean()),
	reserveTokens: Type.Optional(Count),
	compression_ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
	preserve_recent: Type.Optional(Count),
	query: Type.Optional(Type.String()),
});

const ThinkingBudgets = Type.Object({
	minimal: Type.Optional(Count),
	low: Type.Optional(Count),
	medium: Type.Optional(Count),
	high: Type.Optional(Count),
	xhigh: Type.Optional(Count),
	max: Type.Optional(Count),
});

/** The `permissions` block; the mode names are APPROVAL_MODES of src/permissions (a test keeps them equal). */
export const PermissionsSettingsSchema = Type.Object({
	mode: Type.Optional(Type.Enum(["auto", "ask", "read-only"])),
	allow: Type.Optional(Type.Array(Type.String())),
	deny: Type.Optional(Type.Array(Type.String())),
	/** How long a request waits for an answer (ms); 0: no limit. At most what a timer can wait (~24.8 days). */
	timeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
});

/**
 * What settings.json may hold. Keys not listed are kept and ignored (other programs and later
 * versions write their own); a listed key with a value of the wrong kind is dropped with an error.
 */
export const SettingsSchema = Type.Object({
	defaultProvider: Type.Optional(Type.String()),
	defaultModel: Type.Optional(Type.String()),
	defaultThinkingLevel: Type.Optional(Type.String()),
	steeringMode: Type.Optional(QueueMode),
	followUpMode: Type.Optional(QueueMode),
	/** Shorthand for compaction.enabled. */
	autoCompaction: Type.Optional(Type.Boolean()),
	compaction: Type.Optional(CompactionSettings),
	retry: Type.Optional(RetrySettings),
	sessionDir: Type.Optional(Type.String()),
	/** Token budgets per thinking level for budget-based providers. */
	thinkingBudgets: Type.Optional(ThinkingBudgets),
	/** Give up on a provider stream that sends nothing for this long (ms); 0 disables. */
	streamIdleTimeoutMs: Type.Optional(Type.Number({ minimum: 0 })),
	/** The shell for bash; default: $SHELL when it is bash or zsh, else /bin/bash, else sh. */
	shellPath: Type.Optional(Type.String()),
	/** Tool approvals: mode, allow and deny rules, request timeout. */
	permissions: Type.Optional(PermissionsSettingsSchema),
});

export type RetrySettings = Static<typeof RetrySettings>;
export type CompactionSettings = Static<typeof CompactionSettings>;
export type PermissionsSettings = Static<typeof PermissionsSettingsSchema>;
/** One settings file, validated. */
export type SettingsFile = Static<typeof SettingsSchema> & { [key: string]: unknown };
