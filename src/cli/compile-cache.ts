import { isAscii } from "node:buffer";
import {
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	renameSync,
	statSync,
	writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { underDefaultV8Flags } from "../platform/v8-flags.js";

/**
 * V8's code cache for the CLI's own chunks, the runtime equivalent of Node 22's compile cache
 * (Node 20 has none for modules). Compiling start-up's code is the largest part of a cold start;
 * with a cache V8 reads the compiled code instead.
 *
 * The cache is made when the package is built (`npm ci` runs the build): scripts/compile-cache.mjs
 * runs the CLI with ATOMIC_COMPILE_CACHE=write through start-up and the idle preload, and each run
 * writes, as it exits, the code of the chunks it loaded with every function that ran. Chunk file
 * names carry a hash of their content, so a cache file named after a chunk belongs to that
 * content; one older than its chunk (a chunk edited in place) is not used. The directory is named
 * after the V8 version and architecture. V8 checks the rest (its version, its flags, the source's
 * length) and rejects a cache that does not fit, which costs only the compile it would have saved.
 *
 * Node 20 loses the dynamic-import callback of a script compiled from a cache, so a chunk that
 * calls `import()` for an external module gets no cache file (the build removes it) and loads
 * as usual; Atomic's own chunks use require for those.
 */

const WRAPPER_PARAMETERS = ["exports", "require", "module", "__filename", "__dirname"] as const;

/** dist/chunks: the only files this cache serves. */
function chunksDir(): string {
	return join(dirname(fileURLToPath(import.meta.url)), "chunks");
}

function cacheDir(chunks: string): string {
	return join(dirname(chunks), "compile-cache", `${process.versions.v8}-${process.arch}`);
}

function cacheFile(dir: string, chunk: string): string {
	return join(dir, `${basename(chunk)}.bin`);
}

/** The cache of `chunk`, unless it is missing, unreadable or older than the chunk. */
function readCache(file: string, chunk: string): Buffer | undefined {
	try {
		if (statSync(chunk).mtimeMs > statSync(file).mtimeMs) return undefined;
		return readFileSync(file);
	} catch (error) {
		// Missing (not built yet) or unreadable: the chunk is compiled as usual.
		if (error instanceof Error) return undefined;
		throw error;
	}
}

/**
 * A chunk's source. The build writes the chunks in ASCII (non-ASCII characters escaped), which reads
 * as Latin-1 straight into a one-byte string; UTF-8 decoding of the start-up chunk took milliseconds.
 * A file that is not ASCII (edited by hand) is decoded as UTF-8.
 */
function readSource(filename: string): string {
	const bytes = readFileSync(filename);
	return bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
}

/** Compiled as Node wraps a CommonJS module, under V8's default flags (which the cache was written with). */
function compile(source: string, filename: string, cachedData: Buffer | undefined): Script {
	const wrapped = `(function (${WRAPPER_PARAMETERS.join(", ")}) { ${source}\n})`;
	return underDefaultV8Flags(() => new Script(wrapped, { filename, cachedData }));
}

/**
 * ATOMIC_DEBUG_COMPILE_CACHE=1: at exit, each chunk is compiled (not run) with its cache as the
 * loader would compile it now, and stderr says whether V8 took the cache: `compile-cache: <chunk>
 * accepted`, `rejected`, or `none` (no cache file). A flag changed at run time shows as rejections.
 */
function reportAtExit(chunks: string, dir: string): void {
	process.on("exit", () => {
		for (const name of readdirSync(chunks).sort()) {
			if (!name.endsWith(".js")) continue;
			const filename = join(chunks, name);
			const cachedData = readCache(cacheFile(dir, filename), filename);
			const verdict =
				cachedData === undefined
					? "none"
					: compile(readSource(filename), filename, cachedData).cachedDataRejected
						? "rejected"
						: "accepted";
			process.stderr.write(`compile-cache: ${name} ${verdict}\n`);
		}
	});
}

function writeAtomically(file: string, data: Buffer): void {
	const temporary = `${file}.${process.pid}.tmp`;
	const fd = openSync(temporary, "w");
	try {
		writeSync(fd, data);
	} finally {
		closeSync(fd);
	}
	renameSync(temporary, file);
}

/** Whether this process writes the code cache (a run of the build): it must leave V8's flags alone. */
function writingCompileCache(): boolean {
	return process.env.ATOMIC_COMPILE_CACHE === "write";
}

/**
 * Write mode, at exit: the cache of each chunk this process loaded, with every function that ran
 * or came from the cache it started from, and of each other chunk that has none yet (its top level
 * only). The build runs several processes (ACP, one per provider it warms up, a prompt); each
 * starts from the caches the others wrote and adds what it ran.
 */
function writeAtExit(chunks: string, dir: string, loaded: Map<string, Script>): void {
	process.on("exit", () => {
		mkdirSync(dir, { recursive: true });
		for (const name of readdirSync(chunks)) {
			if (!name.endsWith(".js")) continue;
			const filename = join(chunks, name);
			const file = cacheFile(dir, filename);
			const script = loaded.get(filename);
			if (script) writeAtomically(file, script.createCachedData());
			else if (!existsSync(file))
				writeAtomically(file, compile(readSource(filename), filename, undefined).createCachedData());
		}
	});
}

/**
 * Serves the CLI's chunks from the code cache from now on. Only the CLI calls this (an SDK user's
 * process keeps its own loader untouched); without the cache files it changes nothing.
 */
export function useCompileCache(): void {
	const chunks = chunksDir();
	const dir = cacheDir(chunks);
	const writing = writingCompileCache();
	if (!writing && !existsSync(dir)) return;
	const loaded = new Map<string, Script>();
	if (writing) writeAtExit(chunks, dir, loaded);
	else if (process.env.ATOMIC_DEBUG_COMPILE_CACHE === "1") reportAtExit(chunks, dir);
	const extensions = createRequire(import.meta.url).extensions;
	const original = extensions[".js"];
	extensions[".js"] = (module, filename) => {
		if (dirname(filename) !== chunks) return original(module, filename);
		// A run of the build starts from what the runs before it wrote, so that its cache adds to theirs.
		const cachedData = readCache(cacheFile(dir, filename), filename);
		if (!writing && cachedData === undefined) return original(module, filename);
		const script = compile(readSource(filename), filename, cachedData);
		if (writing) loaded.set(filename, script);
		const wrapper: unknown = script.runInThisContext({ displayErrors: true });
		if (typeof wrapper !== "function") throw new Error(`${filename} did not compile to a module function`);
		const require = createRequire(filename);
		Reflect.apply(wrapper, module.exports, [module.exports, require, module, filename, dirname(filename)]);
	};
}
