import type { AgentLoopConfig } from "../agent/types.js";
import type { Model, ThinkingLevel } from "../llm/types.js";
import type { SettingsStore } from "../resources/settings.js";
import type { CycleResult, ModelControl } from "./model-control.js";
import type { SessionSlot } from "./session-slot.js";

export interface ModelSyncHost {
	models: ModelControl;
	/** The loop's config: model and level take effect at its next turn. */
	config: AgentLoopConfig;
	slot(): SessionSlot;
	/** A session write that reports (never throws) a failure. */
	record(write: () => unknown): void;
	settings: SettingsStore;
	/** Save explicit choices as the user's defaults. */
	persistDefaults: boolean;
}

/**
 * Keeps the model and thinking level consistent everywhere they live: the choice itself
 * (ModelControl), the loop's config, the session's model_change / thinking_level_change entries
 * (written once per change), and, for explicit choices, the user's default settings.
 */
export class ModelSync {
	constructor(private readonly host: ModelSyncHost) {}

	setModel(provider: string, modelId: string): Model {
		const before = this.host.models.model;
		const model = this.host.models.setModel(provider, modelId);
		this.afterModelChange(before);
		return model;
	}

	cycleModel(direction?: "forward" | "backward"): CycleResult | undefined {
		const before = this.host.models.model;
		const result = this.host.models.cycle(direction);
		if (result) this.afterModelChange(before);
		return result;
	}

	setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
		const before = this.host.models.thinkingLevel;
		const applied = this.host.models.setThinkingLevel(level);
		if (applied !== before) this.recordThinkingLevel(true);
		return applied;
	}

	cycleThinkingLevel(): ThinkingLevel | undefined {
		const level = this.host.models.cycleThinkingLevel();
		if (level !== undefined) this.recordThinkingLevel(true);
		return level;
	}

	/** Copies the current model and level into the loop's config. */
	apply(): void {
		const { models, config } = this.host;
		if (models.model) config.model = models.model;
		config.thinkingLevel = models.thinkingLevel;
	}

	/** Writes a thinking_level_change when the session's recorded level differs. */
	recordThinkingLevel(explicit = false): void {
		const level = this.host.models.thinkingLevel;
		const slot = this.host.slot();
		if (slot.thinkingLevel !== level) {
			this.host.record(() => slot.session.appendThinkingLevelChange(level));
			slot.thinkingLevel = level;
		}
		this.host.config.thinkingLevel = level;
		if (explicit && this.host.persistDefaults) this.host.settings.update({ defaultThinkingLevel: level });
	}

	/** Writes the model of a fresh session (one whose entries name none yet). */
	recordModel(): void {
		const model = this.host.models.model;
		if (!model) return;
		const session = this.host.slot().session;
		this.host.record(() => session.appendModelChange(model.provider, model.id));
	}

	private afterModelChange(before: Model | undefined): void {
		const model = this.host.models.model;
		if (!model) return;
		this.apply();
		if (!before || before.provider !== model.provider || before.id !== model.id) this.recordModel();
		this.recordThinkingLevel();
		if (this.host.persistDefaults) {
			this.host.settings.update({
				defaultProvider: model.provider,
				defaultModel: model.id,
				defaultThinkingLevel: this.host.models.thinkingLevel,
			});
		}
	}
}
