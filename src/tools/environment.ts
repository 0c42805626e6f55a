/**
 * The environment of the commands the agent runs (the bash tool, a client's `bash`, an extension's
 * exec): this process's, without the variables Atomic reads credentials from, so that `env` or a
 * hostile script cannot hand the provider keys to the model. `inherit` keeps them: `true` all of
 * them, a list only those named.
 */
export function toolEnvironment(
	env: NodeJS.ProcessEnv,
	credentialVariables: ReadonlySet<string>,
	inherit: boolean | readonly string[] = false,
): NodeJS.ProcessEnv {
	if (inherit === true) return { ...env };
	const kept = new Set(inherit === false ? [] : inherit);
	const result: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(env)) {
		if (credentialVariables.has(name) && !kept.has(name)) continue;
		result[name] = value;
	}
	return result;
}
