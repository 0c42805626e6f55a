// The SDK entry point: everything an embedder imports from "atomic-agent".
export * from "./llm/index.js";
