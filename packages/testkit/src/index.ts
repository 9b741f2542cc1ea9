export * from './hub-harness.js';
