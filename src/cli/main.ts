import { agentDir } from "../llm/config-paths.js";
import { ModelRegistry } from "../llm/model-registry.js";
import { SettingsStore } from "../resources/settings.js";
import { helpText, parseArgs } from "./args.js";
import { listModels } from "./list-models.js";
import { chooseModel } from "./model-selection.js";
import { runPrintMode } from "./print-mode.js";

declare const __ATOMIC_VERSION__: string;

async function main(argv: string[]): Promise<number> {
	const args = parseArgs(argv);
	if (args.version) {
		process.stdout.write(`${__ATOMIC_VERSION__}\n`);
		return 0;
	}
	if (args.help) {
		process.stdout.write(`${helpText(__ATOMIC_VERSION__)}\n`);
		return 0;
	}
	const dir = agentDir();
	const registry = new ModelRegistry(dir);
	for (const error of registry.errors) process.stderr.write(`Warning: ${error}\n`);
	if (args.listModels) {
		process.stdout.write(`${listModels(registry, args.listModelsSearch)}\n`);
		return 0;
	}
	const settings = new SettingsStore(dir, process.cwd());
	for (const error of settings.errors) process.stderr.write(`Warning: ${error}\n`);
	if (args.print || args.messages.length > 0) {
		const prompt = args.messages.join(" ").trim();
		if (!prompt) throw new Error('No prompt given: atomic -p "your prompt"');
		const choice = chooseModel(registry, settings.get(), args);
		for (const warning of choice.warnings) process.stderr.write(`Warning: ${warning}\n`);
		if (args.apiKey) registry.credentials.setRuntimeKey(choice.model.provider, args.apiKey);
		return runPrintMode(registry, choice.model, choice.thinkingLevel, prompt);
	}
	process.stderr.write(`${helpText(__ATOMIC_VERSION__)}\n`);
	return 1;
}

main(process.argv.slice(2)).then(
	(code) => {
		process.exitCode = code;
	},
	(error: unknown) => {
		process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
		process.exitCode = 1;
	},
);
