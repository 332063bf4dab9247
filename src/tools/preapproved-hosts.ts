/**
 * WebFetch's pre-approved documentation hosts: Claude Code 2.1.197 fetches these without asking
 * (after the deny and allow rules; read from its binary, in its order, duplicates and all). An
 * entry with a path (`github.com/anthropics`) covers that path and what is under it, and no URL
 * whose path hides an encoded `/`, `\\` or `.` (`%2f`, `%5c`, `%2e`, also double-encoded). The
 * host is the one the URL parser gives, the host fetch connects to; the match is exact (no
 * subdomains, no trailing dot), as in Claude Code.
 */
const PREAPPROVED = [
  'platform.claude.com',
  'code.claude.com',
  'modelcontextprotocol.io',
  'github.com/anthropics',
  'agentskills.io',
  'docs.python.org',
  'en.cppreference.com',
  'docs.oracle.com',
  'learn.microsoft.com',
  'developer.mozilla.org',
  'go.dev',
  'pkg.go.dev',
  'www.php.net',
  'docs.swift.org',
  'kotlinlang.org',
  'ruby-doc.org',
  'doc.rust-lang.org',
  'www.typescriptlang.org',
  'react.dev',
  'angular.io',
  'vuejs.org',
  'nextjs.org',
  'expressjs.com',
  'nodejs.org',
  'bun.sh',
  'jquery.com',
  'getbootstrap.com',
  'tailwindcss.com',
  'd3js.org',
  'threejs.org',
  'redux.js.org',
  'webpack.js.org',
  'jestjs.io',
  'reactrouter.com',
  'docs.djangoproject.com',
  'flask.palletsprojects.com',
  'fastapi.tiangolo.com',
  'pandas.pydata.org',
  'numpy.org',
  'www.tensorflow.org',
  'pytorch.org',
  'scikit-learn.org',
  'matplotlib.org',
  'requests.readthedocs.io',
  'jupyter.org',
  'laravel.com',
  'symfony.com',
  'wordpress.org/documentation',
  'docs.spring.io',
  'hibernate.org',
  'tomcat.apache.org',
  'gradle.org',
  'maven.apache.org',
  'asp.net',
  'dotnet.microsoft.com',
  'blazor.net',
  'reactnative.dev',
  'docs.flutter.dev',
  'developer.apple.com',
  'developer.android.com',
  'keras.io',
  'spark.apache.org',
  'huggingface.co/docs',
  'www.kaggle.com/docs',
  'www.mongodb.com',
  'redis.io',
  'www.postgresql.org',
  'dev.mysql.com',
  'www.sqlite.org',
  'graphql.org',
  'prisma.io',
  'docs.getdbt.com',
  'docs.aws.amazon.com',
  'cloud.google.com',
  'learn.microsoft.com',
  'kubernetes.io',
  'www.docker.com',
  'www.terraform.io',
  'www.ansible.com',
  'vercel.com/docs',
  'docs.stripe.com',
  'docs.netlify.com',
  'devcenter.heroku.com',
  'dev.wix.com/docs',
  'cypress.io',
  'selenium.dev',
  'docs.unity.com',
  'docs.unrealengine.com',
  'git-scm.com',
  'nginx.org',
  'httpd.apache.org',
] as const;

const HOSTS = new Set<string>();
const PATH_PREFIXES = new Map<string, string[]>();
for (const entry of PREAPPROVED) {
  const slash = entry.indexOf('/');
  if (slash === -1) HOSTS.add(entry);
  else {
    const host = entry.slice(0, slash);
    PATH_PREFIXES.set(host, [...(PATH_PREFIXES.get(host) ?? []), entry.slice(slash)]);
  }
}

/** True when `url` is on a pre-approved documentation host (or under a pre-approved path). */
export function isPreapprovedUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  if (parsed.username || parsed.password) return false;
  if (HOSTS.has(parsed.hostname)) return true;
  const prefixes = PATH_PREFIXES.get(parsed.hostname);
  if (!prefixes || /%(25)*(2f|5c|2e)/i.test(parsed.pathname)) return false;
  return prefixes.some((prefix) => parsed.pathname === prefix || parsed.pathname.startsWith(`${prefix}/`));
}
