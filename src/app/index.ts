/**
 * The composition root: builds the store, the clients, access, the features, the engine and the
 * chat adapters once, and wires them (docs/ARCHITECTURE.md, "Layers").
 */
export { createApp, DEMO_PASSWORD, type App, type AppOptions } from './create-app.js';
export { progressReporter } from './progress-reporter.js';
