/**
 * Renders deploy/haproxy.cfg for replicas on this machine: the front and stats `bind` addresses
 * and the backend's `server` lines are replaced, every other line (time-outs, retries, health
 * checks) is kept, so the cluster script and the replica test run the deployed configuration.
 */

export interface HaproxyTargets {
  /** `host:port` the balancer serves on. */
  front: string;
  /** `host:port` of the stats page. */
  stats: string;
  /** One per replica: its server name and `host:port`. */
  servers: readonly { name: string; address: string }[];
}

export class HaproxyConfigError extends Error {
  override name = 'HaproxyConfigError';
}

export function renderHaproxyConfig(template: string, targets: HaproxyTargets): string {
  const lines = template.split('\n');
  const out: string[] = [];
  let section = '';
  let serversWritten = false;
  const seen = new Set<string>();
  for (const line of lines) {
    const header = /^(global|defaults|frontend|backend|listen)\b\s*(\S*)/.exec(line);
    if (header) section = `${header[1]} ${header[2] ?? ''}`.trim();
    const bind = /^(\s+)bind\s+\S+(.*)$/.exec(line);
    const server = /^(\s+)server\s+\S+\s+\S+(.*)$/.exec(line);
    if (bind && section === 'frontend api') {
      out.push(`${bind[1]}bind ${targets.front}${bind[2]}`);
      seen.add('front');
    } else if (bind && section === 'frontend stats') {
      out.push(`${bind[1]}bind ${targets.stats}${bind[2]}`);
      seen.add('stats');
    } else if (server && section === 'backend replicas') {
      // The template's lines are examples: all of them give way to the replicas given here.
      if (!serversWritten) out.push(...targets.servers.map(({ name, address }) => `${server[1]}server ${name} ${address}${server[2]}`));
      serversWritten = true;
      seen.add('servers');
    } else {
      out.push(line);
    }
  }
  for (const part of ['front', 'stats', 'servers']) {
    // A template edited beyond recognition must not silently serve on its own addresses.
    if (!seen.has(part))
      throw new HaproxyConfigError(
        `deploy/haproxy.cfg has no ${part === 'servers' ? '`server` line in `backend replicas`' : `\`bind\` line in \`frontend ${part === 'front' ? 'api' : 'stats'}\``}`,
      );
  }
  return out.join('\n');
}
