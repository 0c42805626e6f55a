import type { AgentTool } from "../../agent/types.js";
import { type PublicModel, publicModel } from "../../llm/model-redaction.js";
import type { Model } from "../../llm/types.js";

/**
 * The parts of the session state that are objects, kept from one read to the next while they are
 * unchanged: the state is read after every burst of events, and the tracker then finds the same
 * object (its JSON known) instead of redacting the model's URL and mapping the tools again.
 */
export class StateValueCache {
	private model: { model: Model; baseUrl: string; value: PublicModel } | undefined;
	private names: { tools: readonly AgentTool[]; value: string[] } | undefined;

	/** The model's public form, rebuilt when the model (or its base URL) changes. */
	publicModel(model: Model): PublicModel {
		const known = this.model;
		if (known?.model === model && known.baseUrl === model.baseUrl) return known.value;
		const value = publicModel(model);
		this.model = { model, baseUrl: model.baseUrl, value };
		return value;
	}

	/** The offered tools' names: the same array while the tools are the same. */
	toolNames(tools: readonly AgentTool[]): string[] {
		if (this.names?.tools !== tools) this.names = { tools, value: tools.map((tool) => tool.name) };
		return this.names.value;
	}
}
