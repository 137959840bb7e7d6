/** The demo: its banner, the faults `/demo <fault> <node>` injects, and the watches it sets up. */
export { DEMO_SUGGESTIONS, demoBanner } from './demo-banner.js';
export { demoFaults } from './demo-faults.js';
export { wireDemo } from './wire-demo.js';
export { demoLogFile, demoStateKept, startFresh } from './demo-state.js';
