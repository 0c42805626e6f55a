import type { ModelRegistry } from "../llm/model-registry.js";

function formatTokens(count: number): string {
	const trim = (value: number) => value.toFixed(1).replace(/\.0$/, "");
	if (count >= 999_500) return `${trim(count / 1_000_000)}M`;
	// Powers-of-two limits read as their usual names: 8192 is 8K, 131072 is 128K.
	if (count >= 1024 && (count & (count - 1)) === 0) return `${count / 1024}K`;
	if (count >= 10_000) return `${Math.round(count / 1000)}K`;
	if (count >= 1000) return `${trim(count / 1000)}K`;
	return String(count);
}

/** One line per model, columns aligned: provider, id, context, max out, reasoning, input, key. */
export function listModels(registry: ModelRegistry, search?: string): string {
	const needle = search?.toLowerCase();
	const models = registry
		.all()
		.filter((model) => !needle || `${model.provider}/${model.id} ${model.name}`.toLowerCase().includes(needle));
	const auth = new Map<string, string>();
	const keyOf = (provider: string) => {
		let label = auth.get(provider);
		if (label === undefined) {
			const status = registry.authStatus(provider);
			label = status.configured
				? status.label && status.source === "environment"
					? status.label
					: (status.source ?? "yes")
				: "-";
			auth.set(provider, label);
		}
		return label;
	};
	const rows = [
		["provider", "model", "context", "max-out", "thinking", "input", "key"],
		...models.map((model) => [
			model.provider,
			model.id,
			formatTokens(model.contextWindow),
			formatTokens(model.maxTokens),
			model.reasoning ? "yes" : "no",
			model.input.join(","),
			keyOf(model.provider),
		]),
	];
	const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] as string).length))) ?? [];
	return rows
		.map((row) =>
			row
				.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
				.join("  ")
				.trimEnd(),
		)
		.join("\n");
}
