/**
 * The deployment files agree with each other and with the code: the Dockerfile, its entry point
 * and .dockerignore, deploy/kubernetes.yaml, the systemd unit and the reverse-proxy examples
 * (docs/operations.md). Read as text, so nothing here needs a container runtime; nginx and
 * systemd-analyze check their files when installed. Building and running the image is verified by
 * hand (docs/operations.md, "What was verified").
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { DEFAULT_LIMITS, loadConfig } from '../../src/config/load-config.js';

const dockerfile = readFileSync('Dockerfile', 'utf8');
const dockerignore = readFileSync('.dockerignore', 'utf8');
const entrypoint = readFileSync('scripts/container/entrypoint.sh', 'utf8');
const kubernetes = readFileSync('deploy/kubernetes.yaml', 'utf8');
const unit = readFileSync('deploy/local-inference.service', 'utf8');
const nginx = readFileSync('deploy/nginx.conf', 'utf8');
const caddyfile = readFileSync('deploy/Caddyfile', 'utf8');
const healthRoutes = readFileSync('src/http/routes/health-routes.ts', 'utf8');
const buildBase = readFileSync('scripts/container/build-base.sh', 'utf8');
const ciRun = readFileSync('.ci/run', 'utf8');
const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; engines: { node: string } };

/** The Dockerfile's ENV settings of its last stage (`ENV A=1 \ B=2`), joined continuation lines. */
function dockerEnv(): Record<string, string> {
  const runStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const match of runStage.replace(/\\\n\s*/g, ' ').matchAll(/^ENV (.+)$/gm)) {
    for (const pair of match[1]!.trim().split(/\s+/)) {
      const [name, value] = pair.split('=', 2) as [string, string];
      env[name] = value;
    }
  }
  return env;
}

/** `Environment=` assignments of the unit (several per line). */
function unitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of unit.matchAll(/^Environment=(.+)$/gm)) {
    for (const pair of match[1]!.trim().split(/\s+/)) {
      const [name, value] = pair.split('=', 2) as [string, string];
      env[name] = value;
    }
  }
  return env;
}

function unitValues(key: string): string[] {
  return [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1]!.trim());
}

function sqliteDirectory(databaseUrl: string): string {
  const { databasePath } = loadConfig({ DATABASE_URL: databaseUrl });
  return dirname(databasePath);
}

const env = dockerEnv();
const defaultPort = String(loadConfig({}).port);

describe('deployment files', () => {
  describe('the Dockerfile', () => {
    it('is based on the Node.js of package.json’s engines floor, as the local base and CI are', () => {
      const floor = /^>=\s*(\d+)(\.|$)/.exec(packageJson.engines.node)?.[1];
      expect(floor, `engines.node ${packageJson.engines.node}`).to.be.a('string');
      // The official image's tag (node:22-trixie-slim, maybe behind a registry) names its major.
      const baseImage = /^ARG BASE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
      expect(baseImage).to.match(new RegExp(`^(?:\\S+/)?node:${floor}[-.]`));
      // build-base.sh makes the same where no registry is reachable, with the Node build CI takes.
      const localVersion = /^NODE_VERSION="\$\{NODE_VERSION:-(\d+\.\d+\.\d+)\}"$/m.exec(buildBase)?.[1];
      expect(localVersion).to.equal(/^NODE_FLOOR_VERSION=(\S+)$/m.exec(ciRun)?.[1]);
      expect(localVersion?.split('.')[0]).to.equal(floor);
    });

    it('listens where it says, on every interface, on the server’s default port', () => {
      expect(env.PORT).to.equal(defaultPort);
      expect(env.HOST).to.equal('0.0.0.0');
      expect(dockerfile).to.match(new RegExp(`^EXPOSE ${env.PORT}$`, 'm'));
    });

    it('keeps models and the SQLite database on its volumes, owned by its non-root user', () => {
      const volumes = JSON.parse(/^VOLUME (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
      expect(volumes).to.include(env.MODELS_DIR);
      expect(volumes).to.include(sqliteDirectory(env.DATABASE_URL!));
      expect(dockerfile).to.match(/^USER inference:inference$/m);
      expect(dockerfile).to.match(new RegExp(`chown inference:inference ${volumes.join(' ')}`));
      // The manifest ships in the image, outside the models volume (it does not follow MODELS_DIR).
      expect(dockerfile).to.include(`COPY models/models.json ${env.MODELS_MANIFEST!.replace(/^\/app\//, '')}`);
    });

    it('health-checks /healthz, a route the server serves', () => {
      expect(healthRoutes).to.include("'/healthz'");
      const healthcheck = dockerfile.slice(dockerfile.indexOf('HEALTHCHECK'));
      expect(healthcheck.slice(0, healthcheck.indexOf('\nENTRYPOINT'))).to.include('/healthz');
    });

    it('runs the server under jemalloc, which it installs', () => {
      expect(dockerfile).to.match(/apt-get install[^\n]*\n[^\n]*libjemalloc2/);
      expect(entrypoint).to.match(/serve\) exec sh scripts\/server-allocator\.sh node dist\/src\/server\.js/);
    });

    it('has an entry point whose commands are built from sources the build compiles', () => {
      const tsconfig = readFileSync('tsconfig.json', 'utf8');
      const built = [...entrypoint.matchAll(/node (dist\/\S+)\.js/g)].map((match) => match[1]!);
      expect(built).to.have.members(['dist/src/server', 'dist/scripts/download-models', 'dist/scripts/keys']);
      for (const path of built) {
        const source = `${path.replace(/^dist\//, '')}.ts`;
        expect(existsSync(source), source).to.equal(true);
        expect(tsconfig).to.include(`"${source.split('/')[0]}/**/*.ts"`);
      }
    });

    it('copies only what .dockerignore lets into the build context', () => {
      const allowed = dockerignore
        .split('\n')
        .filter((line) => line.startsWith('!'))
        .map((line) => line.slice(1).replace(/\/$/, ''));
      expect(dockerignore.split('\n').find((line) => line !== '' && !line.startsWith('#'))).to.equal('*');
      const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((match) => match[1]!.trim().split(/\s+/).slice(0, -1));
      expect(sources).to.include.members(['package-lock.json', 'src', 'models/models.json']);
      for (const source of sources) {
        expect(
          allowed.some((entry) => source === entry || source.startsWith(`${entry}/`)),
          `${source} is not in .dockerignore's allowlist`,
        ).to.equal(true);
        expect(existsSync(source), source).to.equal(true);
      }
    });
  });

  describe('deploy/kubernetes.yaml', () => {
    it('runs the image the Dockerfile builds, as its user', () => {
      expect(kubernetes).to.match(new RegExp(`image: \\S+/local-inference-server:${packageJson.version.replace(/\./g, '\\.')}$`, 'm'));
      expect(kubernetes).to.match(/^\s+runAsUser: 10001$/m);
      expect(dockerfile).to.include('--uid 10001');
      expect(kubernetes).to.match(/^\s+args: \[serve\]$/m);
    });

    it('probes the port and health paths the server serves', () => {
      expect(kubernetes).to.include(`containerPort: ${env.PORT}`);
      expect(kubernetes).to.match(/livenessProbe:\n\s+httpGet: \{ path: \/healthz, port: http \}/);
      expect(kubernetes).to.match(/readinessProbe:\n\s+httpGet: \{ path: \/readyz, port: http \}/);
      expect(healthRoutes).to.include("'/readyz'");
    });

    it('mounts the image’s volumes', () => {
      expect(kubernetes).to.include(`- { name: MODELS_DIR, value: ${env.MODELS_DIR} }`);
      expect(kubernetes).to.include(`mountPath: ${env.MODELS_DIR}, readOnly: true }`);
      expect(kubernetes).to.include(`mountPath: ${sqliteDirectory(env.DATABASE_URL!)} }`);
    });
  });

  describe('deploy/local-inference.service', () => {
    const serviceEnv = unitEnv();

    it('runs the built server under a dedicated user, restarting on failure', () => {
      expect(unitValues('User')).to.deep.equal(['inference']);
      expect(unitValues('Restart')).to.deep.equal(['on-failure']);
      expect(unitValues('ExecStart')[0]).to.match(/\/scripts\/start\.sh$/);
      expect(serviceEnv.PORT).to.equal(defaultPort);
      expect(unitValues('EnvironmentFile')).to.have.length(1);
    });

    it('is read-only but for the models and the database', () => {
      expect(unitValues('ProtectSystem')).to.deep.equal(['strict']);
      expect(unitValues('NoNewPrivileges')).to.deep.equal(['yes']);
      const writable = unitValues('ReadWritePaths').flatMap((value) => value.split(/\s+/));
      const under = (path: string) => writable.some((root) => path === root || path.startsWith(`${root}/`));
      expect(under(serviceEnv.MODELS_DIR!), 'MODELS_DIR').to.equal(true);
      expect(under(sqliteDirectory(serviceEnv.DATABASE_URL!)), 'the database folder').to.equal(true);
    });

    it('passes systemd-analyze verify', function () {
      if (spawnSync('systemd-analyze', ['--version']).status !== 0) this.skip();
      const check = spawnSync('systemd-analyze', ['verify', 'deploy/local-inference.service'], { encoding: 'utf8' });
      expect(check.status, check.stderr).to.equal(0);
      // Other units' warnings (the host's own) are not this file's business.
      expect(check.stderr.split('\n').filter((line) => line.includes('local-inference.service'))).to.deep.equal([]);
    });
  });

  describe('the TLS reverse proxies', () => {
    const limitMb = DEFAULT_LIMITS.maxAudioBytes / 1024 / 1024;

    it('pass the largest upload, stream answers and upgrade /v1/realtime (nginx)', () => {
      expect(Number(/client_max_body_size (\d+)m;/.exec(nginx)![1])).to.be.greaterThan(limitMb);
      expect(nginx).to.include('proxy_buffering off;');
      expect(nginx).to.include(`server 127.0.0.1:${defaultPort};`);
      const realtime = nginx.slice(nginx.indexOf('location = /v1/realtime'));
      expect(realtime.slice(0, realtime.indexOf('}'))).to.include('proxy_set_header Upgrade $http_upgrade;');
    });

    it('pass the largest upload and stream answers (Caddy)', () => {
      expect(Number(/max_size (\d+)MB/.exec(caddyfile)![1])).to.be.greaterThan(limitMb);
      expect(caddyfile).to.include(`reverse_proxy 127.0.0.1:${defaultPort}`);
      expect(caddyfile).to.include('flush_interval -1');
    });

    it('passes nginx -t', function () {
      if (spawnSync('nginx', ['-v']).status !== 0) this.skip();
      const dir = mkdtempSync(join(tmpdir(), 'lis-nginx-'));
      try {
        // Certificates are only read when nginx starts, but -t opens them: a throwaway pair.
        const subject = ['-subj', '/CN=localhost', '-days', '1', '-nodes', '-newkey', 'rsa:2048'];
        const keys = spawnSync('openssl', ['req', '-x509', ...subject, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]);
        if (keys.status !== 0) this.skip();
        const site = nginx
          .replace(/\/etc\/letsencrypt\/live\/[^;]+\/fullchain\.pem/, join(dir, 'cert.pem'))
          .replace(/\/etc\/letsencrypt\/live\/[^;]+\/privkey\.pem/, join(dir, 'key.pem'));
        writeFileSync(join(dir, 'site.conf'), site);
        writeFileSync(
          join(dir, 'nginx.conf'),
          `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${dir}/site.conf;\n}\n`,
        );
        const check = spawnSync('nginx', ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' });
        expect(check.status, check.stderr).to.equal(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
