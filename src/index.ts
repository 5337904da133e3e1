// The package entry is the typed client only: importing it loads no server, database or
// chain code, so applications that merely call an explorer API stay light.
export * from './sdk/index.js';
