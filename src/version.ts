/** The package version. */
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** The Claude Code version whose stream agentpipe's matches (`system/init.claude_code_version`). */
export const COMPAT_CLAUDE_CODE_VERSION = '2.1.332';
