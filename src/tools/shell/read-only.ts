/**
 * Which simple commands only read. A program is read-only when it is on this allow list AND every
 * option it was given is on its list of options known not to write, run anything or read file
 * names from elsewhere (GNU long options matched as the prefixes getopt accepts, see options.ts);
 * anything else is unknown, and unknown means "ask". Programs are matched by bare name only: `./ls`
 * or `/tmp/ls` could be anything. A read-only verdict says which words may name files the command
 * reads and which folders it walks, for the path checks of facts.ts.
 */
import { childEnv } from '../../process/env.ts';
import { parseArgs } from './options.ts';
import { HELP, reads, type Program, type ReadOnlyVerdict } from './program.ts';
import { FILE_READERS } from './read-only-files.ts';
import { GIT } from './read-only-git.ts';
import { SEARCHERS } from './read-only-search.ts';

/**
 * Variable names that look like credentials: `printenv` and `env` print them only after asking.
 * Generous on purpose: a false match asks, a missed one hands a secret to the model.
 */
const CREDENTIAL = new RegExp(
  'TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|COOKIE|SESSION|PRIVATE|AUTH|API_?KEY|ACCESS_?KEY|(^|_)(KEY|PAT)$|' +
    '_PWD$|WEBHOOK|SIGNING|SALT|DSN$|DATABASE_URL|CONNECTION_STRING',
  'i',
);

/** A URL with a password in it (`redis://:pw@host`, `postgres://user:pw@host/db`), whatever the variable's name. */
const URL_PASSWORD = /:\/\/[^/\s@]*:[^/\s@]+@/;

function printsEnvironment(names: string[]): ReadOnlyVerdict {
  const env = childEnv();
  const shown = names.length ? names : Object.keys(env);
  const secret = shown.find(
    (name) => CREDENTIAL.test(name) || (Object.hasOwn(env, name) && URL_PASSWORD.test(env[name]!)),
  );
  if (secret) return { refused: `it prints ${secret}, which looks like a credential` };
  return { paths: [], roots: [] };
}

const TEST_OPERATORS = new Set(['=', '==', '!=', '<', '>', '!', '(', ')']);

/** `test` and `[`: `-v` and `-R` take a variable name, whose array subscript bash evaluates (`a[$(cmd)]`). */
function testCommand(args: string[]): ReadOnlyVerdict {
  if (args.some((a) => a === '-v' || a === '-R'))
    return { refused: 'test -v evaluates the array subscript of its operand' };
  return { paths: args.filter((a) => !a.startsWith('-') && !TEST_OPERATORS.has(a)), roots: [] };
}

const PROGRAMS: Record<string, Program> = {
  ...FILE_READERS,
  ...SEARCHERS,
  git: GIT,
  pwd: reads({ flags: 'LP' }, { refuse: (p) => (p.operands.length ? 'pwd takes no operands' : undefined) }),
  cd: reads(
    { flags: 'LPe@', exact: true },
    { refuse: (p) => (p.operands.length > 1 ? 'cd takes one folder' : undefined) },
  ),
  echo: () => ({ paths: [], roots: [] }),
  // bash's printf has one option, -v VAR, which assigns (and evaluates an array subscript).
  printf: (args) =>
    args[0]?.startsWith('-v') ? { refused: 'printf -v assigns a variable' } : { paths: [], roots: [] },
  true: () => ({ paths: [], roots: [] }),
  false: () => ({ paths: [], roots: [] }),
  test: testCommand,
  '[': (args) => (args.at(-1) === ']' ? testCommand(args.slice(0, -1)) : { refused: '[ without ]' }),
  env: (args) => (args.length ? { refused: 'env runs a program or changes the environment' } : printsEnvironment([])),
  printenv: (args) => {
    const parsed = parseArgs(args, { flags: '0', long: { null: 'none', ...HELP } });
    return 'refused' in parsed ? parsed : printsEnvironment(parsed.operands);
  },
  whoami: reads({ long: HELP }, { refuse: (p) => (p.operands.length ? 'whoami takes no operands' : undefined) }),
  uname: reads(
    {
      flags: 'asnrvmpio',
      long: {
        all: 'none',
        'kernel-name': 'none',
        nodename: 'none',
        'kernel-release': 'none',
        'kernel-version': 'none',
        machine: 'none',
        processor: 'none',
        'hardware-platform': 'none',
        'operating-system': 'none',
        ...HELP,
      },
    },
    { noPaths: true },
  ),
  id: reads(
    {
      flags: 'agGnruzZ',
      long: {
        context: 'none',
        group: 'none',
        groups: 'none',
        name: 'none',
        real: 'none',
        user: 'none',
        zero: 'none',
        ...HELP,
      },
    },
    { noPaths: true },
  ),
  which: reads({ flags: 'as', exact: true }, { noPaths: true }),
  basename: reads(
    { flags: 'az', valued: 's', long: { multiple: 'none', suffix: 'value', zero: 'none', ...HELP } },
    { noPaths: true },
  ),
  dirname: reads({ flags: 'z', long: { zero: 'none', ...HELP } }, { noPaths: true }),
  seq: reads(
    {
      flags: 'w',
      valued: 'fs',
      numeric: true,
      long: { 'equal-width': 'none', format: 'value', separator: 'value', ...HELP },
    },
    { noPaths: true },
  ),
  date: reads(
    {
      flags: 'Ru',
      valued: 'dfr',
      optional: 'I',
      long: {
        date: 'value',
        debug: 'none',
        file: 'value',
        'iso-8601': 'optional',
        resolution: 'none',
        'rfc-email': 'none',
        'rfc-3339': 'value',
        reference: 'value',
        utc: 'none',
        universal: 'none',
        ...HELP,
      },
      others: ['set'],
    },
    // An operand that is not +FORMAT sets the clock (`date 010100002030`).
    { refuse: (p) => (p.operands.some((o) => !o.startsWith('+')) ? 'date with a time sets the clock' : undefined) },
  ),
  hostname: reads(
    {
      flags: 'aAdfiIsyV',
      long: {
        alias: 'none',
        'all-fqdns': 'none',
        domain: 'none',
        fqdn: 'none',
        long: 'none',
        'ip-address': 'none',
        'all-ip-addresses': 'none',
        short: 'none',
        yp: 'none',
        nis: 'none',
        ...HELP,
      },
      others: ['boot', 'file'],
    },
    { refuse: (p) => (p.operands.length ? 'hostname with a name sets it' : undefined) },
  ),
};

/** True when `name` is a program on the read-only list (with some options and operands, it only reads). */
export function readOnlyProgram(name: string | undefined): boolean {
  return name !== undefined && !name.includes('/') && Object.hasOwn(PROGRAMS, name);
}

/** The read-only verdict on one argv (program first), or a refusal saying why it is not known to be read-only. */
export function readOnlyUse(argv: string[]): ReadOnlyVerdict {
  const [program, ...args] = argv;
  if (program === undefined) return { refused: 'no program' };
  if (program.includes('/')) return { refused: `${program} is given by path` };
  const check = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program] : undefined;
  if (!check) return { refused: `${program} is not a program known to only read` };
  return check(args);
}

export type { ReadOnlyUse, ReadOnlyVerdict } from './program.ts';

/** True when this argv (program first) is known to change nothing and run nothing else. */
export function isReadOnlyArgv(argv: string[]): boolean {
  return !('refused' in readOnlyUse(argv));
}
