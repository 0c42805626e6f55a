import type { Static } from "typebox";
import { Type } from "../llm/schema-builders.js";

/**
 * What settings.json may hold, checked by the quick check, else TypeBox's validator (src/llm/config-validator.ts).
 * Keys not listed are kept and ignored (other programs and later versions write their own); a
 * listed key with a value of the wrong kind is dropped with an error. Each leaf's `description` is
 * the "expected ..." of its error message.
 */

const count = () => Type.Integer({ minimum: 0, description: "an integer >= 0" });
const milliseconds = () => Type.Number({ minimum: 0, description: "a number of milliseconds >= 0" });
const flag = () => Type.Optional(Type.Boolean({ description: "true or false" }));
const text = () => Type.Optional(Type.String({ description: "a string" }));
const oneOf = <const T extends string[]>(values: readonly [...T]) =>
	Type.Enum(values, { description: `one of ${values.map((value) => JSON.stringify(value)).join(", ")}` });

const QueueMode = oneOf(["all", "one-at-a-time"]);

const RetrySettings = Type.Object(
	{
		enabled: flag(),
		maxRetries: Type.Optional(count()),
		baseDelayMs: Type.Optional(milliseconds()),
		/** Retries inside the provider SDK; Atomic keeps them at 0 and retries itself. */
		provider: Type.Optional(
			Type.Object(
				{ maxRetries: Type.Optional(count()), timeoutMs: Type.Optional(milliseconds()) },
				{ description: "an object" },
			),
		),
	},
	{ description: "an object" },
);

const CompactionSettings = Type.Object(
	{
		enabled: flag(),
		reserveTokens: Type.Optional(count()),
		compression_ratio: Type.Optional(
			Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: "a number between 0 and 1 (exclusive)" }),
		),
		preserve_recent: Type.Optional(count()),
		query: text(),
	},
	{ description: "an object" },
);

const ThinkingBudgets = Type.Object(
	{
		minimal: Type.Optional(count()),
		low: Type.Optional(count()),
		medium: Type.Optional(count()),
		high: Type.Optional(count()),
		xhigh: Type.Optional(count()),
		max: Type.Optional(count()),
	},
	{ description: "an object of token counts by thinking level" },
);

/** The `permissions` block; the mode names are APPROVAL_MODES of src/permissions (a test keeps them equal). */
export const PermissionsSettingsSchema = Type.Object(
	{
		mode: Type.Optional(oneOf(["auto", "ask", "read-only"])),
		allow: Type.Optional(
			Type.Array(Type.String({ description: "a rule (a string)" }), { description: "an array of rules" }),
		),
		deny: Type.Optional(
			Type.Array(Type.String({ description: "a rule (a string)" }), { description: "an array of rules" }),
		),
		/** How long a request waits for an answer (ms); 0: no limit; at most what a timer can wait (~24.8 days). */
		timeoutMs: Type.Optional(
			Type.Integer({
				minimum: 0,
				maximum: 2_147_483_647,
				description: "an integer of milliseconds from 0 to 2147483647",
			}),
		),
	},
	{ description: "an object" },
);

const ShellEnvSettings = Type.Object(
	{
		/**
		 * Keep the variables Atomic reads credentials from (provider keys, models.json and auth.json
		 * `$VAR` references): true for all of them, or the names to keep. Default: removed.
		 */
		inheritCredentials: Type.Optional(
			Type.Union([Type.Boolean(), Type.Array(Type.String())], { description: "true, false or an array of names" }),
		),
	},
	{ description: "an object" },
);

const positive = (what: string) => Type.Integer({ minimum: 1, description: `a whole number of ${what} >= 1` });

/** The `sandbox` block; the mode names are SANDBOX_MODES of src/sandbox. */
export const SandboxSettingsSchema = Type.Object(
	{
		mode: Type.Optional(oneOf(["off", "read-only", "workspace-write"])),
		writableRoots: Type.Optional(
			Type.Array(Type.String({ description: "a path (a string)" }), { description: "an array of paths" }),
		),
		network: Type.Optional(
			Type.Union(
				[
					oneOf(["off", "on"]),
					Type.Array(Type.String({ minLength: 1, description: "a host pattern" }), {
						description: "an array of host patterns",
					}),
				],
				{ description: '"off", "on" or an array of host patterns' },
			),
		),
		denyRead: Type.Optional(
			Type.Array(Type.String({ description: "a path (a string)" }), { description: "an array of paths" }),
		),
		limits: Type.Optional(
			Type.Object(
				{
					memoryMb: Type.Optional(positive("MiB")),
					processes: Type.Optional(positive("processes")),
					cpuSeconds: Type.Optional(positive("seconds")),
				},
				{ description: "an object" },
			),
		),
	},
	{ description: "an object" },
);

export const SettingsSchema = Type.Object(
	{
		defaultProvider: text(),
		defaultModel: text(),
		defaultThinkingLevel: text(),
		steeringMode: Type.Optional(QueueMode),
		followUpMode: Type.Optional(QueueMode),
		/** Shorthand for compaction.enabled. */
		autoCompaction: flag(),
		compaction: Type.Optional(CompactionSettings),
		retry: Type.Optional(RetrySettings),
		sessionDir: text(),
		/** Token budgets per thinking level for budget-based providers. */
		thinkingBudgets: Type.Optional(ThinkingBudgets),
		/** Give up on a provider stream that sends nothing for this long (ms); 0 disables. */
		streamIdleTimeoutMs: Type.Optional(milliseconds()),
		/** The shell for bash; default: $SHELL when it is bash or zsh, else /bin/bash, else sh. */
		shellPath: text(),
		/** Model fallback tiers: `provider/id` patterns (`*` allowed), tried in order when the model fails for good. */
		fallbackModels: Type.Optional(
			Type.Array(Type.String({ description: "a provider/id pattern" }), {
				description: "an array of provider/id patterns",
			}),
		),
		/** Load what the model and the tools need while the process is idle after start-up (default true). */
		idlePreload: flag(),
		/** Quiet time after which a busy session sends a heartbeat (ms); 0: never. */
		heartbeatMs: Type.Optional(milliseconds()),
		/** Tool approvals: mode, allow and deny rules, request timeout. */
		permissions: Type.Optional(PermissionsSettingsSchema),
		/** The environment of the commands the agent runs (bash tool, RPC bash, extension exec); read from the user's file only. */
		shellEnv: Type.Optional(ShellEnvSettings),
		/** Where the model's commands run: mode, writable roots, network, hidden paths, limits (docs/sandbox.md). */
		sandbox: Type.Optional(SandboxSettingsSchema),
	},
	{ description: "an object" },
);

export type RetrySettings = Static<typeof RetrySettings>;
export type CompactionSettings = Static<typeof CompactionSettings>;
export type PermissionsSettings = Static<typeof PermissionsSettingsSchema>;
export type SandboxSettingsBlock = Static<typeof SandboxSettingsSchema>;
/** One settings file, validated. */
export type SettingsFile = Static<typeof SettingsSchema> & { [key: string]: unknown };
