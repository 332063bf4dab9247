/**
 * The library's first import: on a Node.js older than agentpipe needs it stops with the same
 * one-line message as the CLI, instead of a SyntaxError or a missing function later on.
 */
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  throw new Error(`agentpipe: Node.js 22.18 or newer is needed (this is ${process.version})`);
}
export {};
