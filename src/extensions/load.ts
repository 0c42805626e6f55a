import { extensionSourceInfo, findExtensions } from "./discovery.js";
import { type ExtensionErrorListener, type ExtensionHost, errorText } from "./host.js";
import { jitiModule } from "./jiti.js";
import { extensionAliases } from "./package-paths.js";
import { ExtensionRunner } from "./runner.js";
import type { ExtensionFactory } from "./types.js";
import type { ExtensionUiBackend } from "./ui-types.js";

export interface LoadExtensionsOptions {
	/** `-e/--extension` paths; they load even when `discover` is false. */
	paths?: readonly string[];
	cwd: string;
	agentDir: string;
	/** Default true; `--no-extensions` passes false. */
	discover?: boolean;
	host: ExtensionHost;
	/** The RPC UI bridge; omitted in print and json modes (no UI). */
	ui?: ExtensionUiBackend;
	/** Receives load, hook and command failures (`extension_error`). Must not throw. */
	onError: ExtensionErrorListener;
}

type ModuleImporter = (path: string) => Promise<unknown>;

/** jiti and pi's module stand-ins are imported here only, and only when there is something to load. */
async function createImporter(): Promise<ModuleImporter> {
	const { createJiti } = jitiModule();
	const { piVirtualModules } = await import("./compat/virtual-modules.js");
	const jiti = createJiti(import.meta.url, {
		alias: extensionAliases(),
		virtualModules: piVirtualModules(),
		interopDefault: true,
	});
	return (path) => jiti.import(path, { default: true });
}

/**
 * Finds and loads extensions, in order: `<agentDir>/extensions/`, `<cwd>/.atomic/extensions/`,
 * then the explicit paths. A file that fails (import error, no default-exported function, a
 * throwing factory) is reported with event "load" and skipped; the others still load. Rejects only
 * when an extensions directory exists but cannot be read, or Atomic's own typebox cannot be found.
 */
export async function loadExtensions(options: LoadExtensionsOptions): Promise<ExtensionRunner> {
	const runner = new ExtensionRunner(
		options.ui === undefined
			? { host: options.host, onError: options.onError }
			: { host: options.host, ui: options.ui, onError: options.onError },
	);
	const found = findExtensions({
		cwd: options.cwd,
		agentDir: options.agentDir,
		discover: options.discover ?? true,
		paths: options.paths ?? [],
	});
	for (const error of found.errors) options.onError(error);
	if (found.paths.length === 0) return runner;

	const importModule = await createImporter();
	for (const path of found.paths) {
		let factory: ExtensionFactory;
		try {
			const loaded = await importModule(path);
			if (typeof loaded !== "function") throw new Error("The extension does not default-export a function");
			factory = loaded as ExtensionFactory;
		} catch (error) {
			options.onError({ extensionPath: path, event: "load", error: errorText(error) });
			continue;
		}
		await runner.addExtension(path, factory, extensionSourceInfo(path, options));
	}
	runner.finishLoading();
	return runner;
}
