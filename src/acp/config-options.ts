import {
	type ClientCapabilities,
	RequestError,
	type SessionConfigOption,
	type SessionConfigSelectOption,
} from "@agentclientprotocol/sdk";
import { THINKING_LEVELS, type ThinkingLevel } from "../llm/types.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import { isSandboxMode, SANDBOX_MODES, type SandboxMode } from "../sandbox/types.js";

export const MODEL_OPTION = "model";
export const THINKING_OPTION = "thinking";
export const AUTO_COMPACTION_OPTION = "auto_compaction";
export const AUTO_RETRY_OPTION = "auto_retry";
export const SANDBOX_OPTION = "sandbox";

const SANDBOX_CHOICES: Record<SandboxMode, { name: string; description: string }> = {
	off: { name: "Off", description: "Commands run with your whole authority" },
	"read-only": { name: "Read-only", description: "Commands read; they write only a private /tmp" },
	"workspace-write": { name: "Workspace", description: "Commands write only the workspace and a private /tmp" },
};

/** What the client can show: boolean options only when it offers `session.configOptions.boolean`. */
export interface ConfigOptionSupport {
	booleans: boolean;
}

export function configOptionSupport(capabilities: ClientCapabilities): ConfigOptionSupport {
	return { booleans: Boolean(capabilities.session?.configOptions?.boolean) };
}

const LEVEL_NAMES: Record<ThinkingLevel, string> = {
	off: "Off",
	minimal: "Minimal",
	low: "Low",
	medium: "Medium",
	high: "High",
	xhigh: "Extra high",
	max: "Max",
};

function modelValue(model: { provider: string; id: string }): string {
	return `${model.provider}/${model.id}`;
}

/**
 * The session's model and thinking level as ACP config options: the models whose provider has a
 * key (the current one always listed), and the levels the current model supports; for clients
 * that show boolean options, the automatic compaction and retry switches too.
 */
export function configOptions(session: AgentSession, support: ConfigOptionSupport): SessionConfigOption[] {
	const options: SessionConfigOption[] = [];
	const current = session.model;
	const models = session.availableModels();
	if (current && !models.some((model) => modelValue(model) === modelValue(current))) models.unshift(current);
	const selected = current ?? models[0];
	if (selected) {
		options.push({
			type: "select",
			id: MODEL_OPTION,
			name: "Model",
			category: "model",
			currentValue: modelValue(selected),
			options: models.map(
				(model): SessionConfigSelectOption => ({
					value: modelValue(model),
					name: model.name || model.id,
					description: model.provider,
				}),
			),
		});
	}
	const levels = session.availableThinkingLevels();
	if (levels.length > 1) {
		options.push({
			type: "select",
			id: THINKING_OPTION,
			name: "Thinking",
			category: "thought_level",
			currentValue: session.thinkingLevel,
			options: levels.map((level) => ({ value: level, name: LEVEL_NAMES[level] })),
		});
	}
	options.push({
		type: "select",
		id: SANDBOX_OPTION,
		name: "Sandbox",
		description: session.sandbox.available
			? "Where the model's commands run (docs/sandbox.md)"
			: `Where the model's commands run; the sandbox cannot be made here: ${session.sandbox.reason ?? "unknown"}`,
		currentValue: session.sandbox.mode,
		options: SANDBOX_MODES.map((mode) => ({ value: mode, ...SANDBOX_CHOICES[mode] })),
	});
	if (support.booleans) {
		options.push(
			{
				type: "boolean",
				id: AUTO_COMPACTION_OPTION,
				name: "Automatic compaction",
				description: "Compact the conversation when the context fills up",
				currentValue: session.autoCompactionEnabled,
			},
			{
				type: "boolean",
				id: AUTO_RETRY_OPTION,
				name: "Automatic retry",
				description: "Retry a model request that failed with a transient error",
				currentValue: session.agent.retry.settings.enabled,
			},
		);
	}
	return options;
}

function isThinkingLevel(value: string): value is ThinkingLevel {
	return (THINKING_LEVELS as readonly string[]).includes(value);
}

/** Applies `session/set_config_option`; throws an invalid-params error naming what is wrong. */
export function setConfigOption(
	session: AgentSession,
	support: ConfigOptionSupport,
	configId: string,
	value: string | boolean,
): void {
	if (support.booleans && (configId === AUTO_COMPACTION_OPTION || configId === AUTO_RETRY_OPTION)) {
		if (typeof value !== "boolean")
			throw RequestError.invalidParams(undefined, `"${configId}" takes a boolean, not a value id`);
		if (configId === AUTO_COMPACTION_OPTION) session.setAutoCompaction(value);
		else session.setAutoRetry(value);
		return;
	}
	const known = [
		MODEL_OPTION,
		THINKING_OPTION,
		SANDBOX_OPTION,
		...(support.booleans ? [AUTO_COMPACTION_OPTION, AUTO_RETRY_OPTION] : []),
	];
	if (!known.includes(configId))
		throw RequestError.invalidParams(undefined, `unknown config option "${configId}" (known: ${known.join(", ")})`);
	if (typeof value !== "string")
		throw RequestError.invalidParams(undefined, `"${configId}" takes a value id, not a boolean`);
	if (configId === SANDBOX_OPTION) {
		if (!isSandboxMode(value)) {
			throw RequestError.invalidParams(undefined, `sandbox mode "${value}" is not one of: ${SANDBOX_MODES.join(", ")}`);
		}
		try {
			session.setSandboxMode(value);
		} catch (error) {
			throw RequestError.invalidParams(undefined, error instanceof Error ? error.message : String(error));
		}
		return;
	}
	if (configId === MODEL_OPTION) {
		const model = session.availableModels().find((candidate) => modelValue(candidate) === value);
		if (!model) throw RequestError.invalidParams(undefined, `unknown model "${value}" (or its provider has no key)`);
		session.setModel(model.provider, model.id);
		return;
	}
	// The thinking level: the only id left.
	if (!isThinkingLevel(value) || !session.availableThinkingLevels().includes(value)) {
		const levels = session.availableThinkingLevels().join(", ");
		throw RequestError.invalidParams(undefined, `thinking level "${value}" is not one of: ${levels}`);
	}
	session.setThinkingLevel(value);
}
