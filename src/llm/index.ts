export * from "./cost.js";
export * from "./errors.js";
export * from "./event-stream.js";
export { preloadModelsJsonValidator } from "./models-json.js";
export * from "./registry.js";
export * from "./stream-builder.js";
export * from "./thinking.js";
export * from "./transform.js";
export * from "./types.js";
