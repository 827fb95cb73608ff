/**
 * Errors of `npm run download-models`. Each message is written for the person at the terminal:
 * what went wrong and what to do next. None of them reaches HTTP clients.
 */

export class InstallError extends Error {
  override name = 'InstallError';
}

/** The hub could not be contacted at all; retrying other models is pointless. */
export class HubUnreachableError extends InstallError {
  override name = 'HubUnreachableError';
  constructor(hubUrl: string, reason: string) {
    super(`cannot reach ${hubUrl} (${reason}); to install offline, copy the files and run ` + 'npm run download-models -- --from <dir>');
  }
}

/** The hub answered, but not with the file (404, 401, 5xx…). */
export class HubResponseError extends InstallError {
  override name = 'HubResponseError';
  constructor(
    readonly url: string,
    readonly status: number,
  ) {
    super(`${url} answered HTTP ${status}${hint(status)}`);
  }
}

/** The bytes on disk are not the ones the manifest pins; the file has been deleted. */
export class IntegrityError extends InstallError {
  override name = 'IntegrityError';
}

function hint(status: number): string {
  if (status === 404) return ' (is the repo, revision and path in models/models.json right?)';
  if (status === 401 || status === 403) return ' (the repository is private or gated)';
  if (status === 429) return ' (rate limited; wait and run again, finished files are kept)';
  return '';
}
