import type { ModelRegistry } from "../../llm/model-registry.js";
import { clampThinkingLevel, supportedThinkingLevels } from "../../llm/thinking.js";
import type { Model, ThinkingLevel } from "../../llm/types.js";
import type { SettingsStore } from "../../resources/settings.js";
import type { Session } from "../../session/session.js";
import { recordedThinkingLevel } from "../current/session-queries.js";
import { type CycleResult, type ModelChoices, selectModel } from "./model-selection.js";

/** What model changes are written to: the current session. */
export interface ModelRecorder {
	readonly session: Session;
}

/**
 * The one owner of the current model, the thinking level and the startup condition (an
 * unsupported saved default that blocks prompts). Everything else reads them here. A change is
 * written to the current session once (model_change, thinking_level_change) and, for explicit
 * choices, saved as the user's default. A change whose entry cannot be written (disk full) is not
 * made and throws `The change could not be saved to the session: <reason>`, so that no client is
 * told of a choice the session does not hold. A session replacement resolves all three again, as
 * a process started on that session would.
 */
export class ModelState {
	private current: Model | undefined;
	private level: ThinkingLevel = "off";
	/**
	 * The level last asked for (settings, --thinking, set_thinking_level). Model changes clamp this,
	 * not the current level, so "high" comes back after a detour through a model that cannot reason.
	 */
	private requestedLevel: ThinkingLevel = "off";
	private blocked: string | undefined;
	/** Problems found by the last resolution (an unknown --thinking value, an unmatched --model). */
	warnings: string[] = [];

	constructor(
		private readonly registry: ModelRegistry,
		private readonly settings: SettingsStore,
		private readonly choices: ModelChoices,
		private readonly recorder: ModelRecorder,
		/** Save explicit choices as the user's defaults. */
		private readonly persistDefaults: boolean,
	) {
		this.resolveFor(recorder.session);
	}

	get model(): Model | undefined {
		return this.current;
	}

	get thinkingLevel(): ThinkingLevel {
		return this.level;
	}

	/** Why prompts are refused right now (the unsupported-default condition), if they are. */
	get blockedReason(): string | undefined {
		return this.blocked;
	}

	/**
	 * Resolves model, level and the startup condition for `session` by the startup rules: the
	 * launch choices (--model, --provider, --thinking), then what the session recorded, then the
	 * saved default, then the first model with credentials. Throws only for an unknown --provider.
	 */
	resolveFor(session: Session): void {
		const context = session.buildContext();
		const selection = selectModel({
			registry: this.registry,
			settings: this.settings.get(),
			cliModel: this.choices.model,
			cliProvider: this.choices.provider,
			cliThinking: this.choices.thinking,
			sessionModel: context.model ?? undefined,
			sessionThinking: recordedThinkingLevel(session),
		});
		this.current = selection.model;
		this.level = selection.thinkingLevel;
		this.requestedLevel = selection.requestedThinkingLevel ?? selection.thinkingLevel;
		this.blocked = selection.blockedReason;
		this.warnings = selection.warnings;
	}

	/** Models with credentials, in registry order. */
	available(): Model[] {
		return this.registry.available();
	}

	/** Switches to an available model; clears the startup condition. Throws `Model not found: p/id`. */
	setModel(provider: string, modelId: string): Model {
		const model = this.available().find((candidate) => candidate.provider === provider && candidate.id === modelId);
		if (!model) throw new Error(`Model not found: ${provider}/${modelId}`);
		this.switchTo(model, { chosen: true, clearsBlock: true });
		return model;
	}

	/**
	 * The next (or previous) available model, or undefined when fewer than two are available. A
	 * different model clears the startup condition; the same one keeps it.
	 */
	cycleModel(direction: "forward" | "backward" = "forward"): CycleResult | undefined {
		const candidates = this.available();
		if (candidates.length < 2) return undefined;
		const current = this.current;
		const index = current ? candidates.findIndex((candidate) => sameModel(candidate, current)) : -1;
		const step = direction === "backward" ? -1 : 1;
		const next =
			index < 0
				? (candidates[0] as Model)
				: (candidates[(index + step + candidates.length) % candidates.length] as Model);
		this.switchTo(next, { chosen: true, clearsBlock: !current || !sameModel(next, current) });
		return { model: next, thinkingLevel: this.level, isScoped: false };
	}

	/**
	 * Moves to a fallback model after its predecessor failed: recorded in the session like any
	 * model change, but not saved as the user's default (the default is still the model chosen).
	 * Returns the error when the change could not be saved (the model is then unchanged).
	 */
	fallBackTo(model: Model): Error | undefined {
		try {
			this.switchTo(model, { chosen: false, clearsBlock: false });
			return undefined;
		} catch (error) {
			return error instanceof Error ? error : new Error(String(error));
		}
	}

	/** Sets the level, clamped to what the model supports; returns the level in effect. */
	setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
		this.applyLevel(clampThinkingLevel(this.current, level), true);
		this.requestedLevel = level;
		return this.level;
	}

	availableThinkingLevels(): ThinkingLevel[] {
		return supportedThinkingLevels(this.current);
	}

	/** The next supported level, or undefined for a model that does not reason. */
	cycleThinkingLevel(): ThinkingLevel | undefined {
		if (!this.current?.reasoning) return undefined;
		const levels = this.availableThinkingLevels();
		const next = levels[(levels.indexOf(this.level) + 1) % levels.length] ?? this.level;
		this.applyLevel(next, true);
		this.requestedLevel = next;
		return this.level;
	}

	/**
	 * Makes `model` current, writing model_change first (a failure changes nothing). `chosen`: the
	 * user picked it (it becomes the default); `clearsBlock`: the switch ends the startup condition.
	 * Should the level's entry fail after the model's was written, the model stays and keeps the
	 * level the session records, clamped to it.
	 */
	private switchTo(model: Model, options: { chosen: boolean; clearsBlock: boolean }): void {
		const before = this.current;
		if (!before || !sameModel(before, model)) {
			this.write((session) => session.appendModelChange(model.provider, model.id));
		}
		this.current = model;
		if (options.clearsBlock) this.blocked = undefined;
		try {
			this.applyLevel(clampThinkingLevel(model, this.requestedLevel), false);
		} catch (error) {
			this.level = clampThinkingLevel(model, this.level);
			throw error;
		}
		if (options.chosen && this.persistDefaults) {
			this.settings.update({
				defaultProvider: model.provider,
				defaultModel: model.id,
				defaultThinkingLevel: this.level,
			});
		}
	}

	/** Writes a thinking_level_change when the session records another level, then takes `level`. */
	private applyLevel(level: ThinkingLevel, explicit: boolean): void {
		if (recordedThinkingLevel(this.recorder.session) !== level) {
			this.write((session) => session.appendThinkingLevelChange(level));
		}
		this.level = level;
		if (explicit && this.persistDefaults) this.settings.update({ defaultThinkingLevel: level });
	}

	/** Writes one entry to the current session; throws a clear error when it cannot. */
	private write(append: (session: Session) => unknown): void {
		try {
			append(this.recorder.session);
		} catch (error) {
			const reason = error instanceof Error ? error.message : String(error);
			throw new Error(`The change could not be saved to the session: ${reason}`, { cause: error });
		}
	}
}

function sameModel(a: Model, b: Model): boolean {
	return a.provider === b.provider && a.id === b.id;
}
