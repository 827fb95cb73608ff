/**
 * The one rule that splits the server in two: a request belongs to the key-protected
 * /v1 API (JSON errors) when any reading of its path lies under /v1; everything else is the users
 * API or the open root pages (plain-text errors, no key).
 *
 * "Any reading" because the router, a proxy in front of us and the client may each read a
 * target differently: `/V1/models`, `/v1//models`, `/%76%31/models`, `/users/../v1/models`,
 * `\v1\models` and the absolute form `http://host/v1/models` all count as /v1. The routers are case-sensitive
 * and match the raw path, so a request can only reach a /v1 route if its raw path starts with
 * "/v1/", which this rule always covers.
 */

const API_PREFIX = '/v1';

export function isApiPath(path: string): boolean {
  return underApiPrefix(path.toLowerCase()) || underApiPrefix(canonicalPath(path));
}

/**
 * Percent-decoded (repeatedly, so double encoding does not hide a segment), backslashes as
 * slashes, empty and `.` segments dropped, `..` resolved, lower case. Each `%XX` is decoded on
 * its own, as a byte, so a stray `%` elsewhere (`/users/%`) neither hides an encoded `/v1` nor
 * moves a users API path into the /v1 API.
 */
export function canonicalPath(path: string): string {
  let decoded = path;
  for (let round = 0; round < 4 && PERCENT_ESCAPE.test(decoded); round++) {
    decoded = decoded.replace(PERCENT_ESCAPES, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  const segments: string[] = [];
  for (const segment of decoded.replaceAll('\\', '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`.toLowerCase();
}

const PERCENT_ESCAPE = /%[0-9a-f]{2}/i;
const PERCENT_ESCAPES = /%([0-9a-f]{2})/gi;

function underApiPrefix(path: string): boolean {
  // Also `/v1;x` and `/v1.`: routers and proxies differ on what ends a segment, so only a
  // letter or digit makes it another name (`/v10`, `/v1beta`).
  return path.startsWith(API_PREFIX) && !/^[a-z0-9]/.test(path.slice(API_PREFIX.length));
}
