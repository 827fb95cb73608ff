import type { KeyAccess } from '../auth/key-access.js';
import type { Viewer } from './file-store.js';

/** The key of the request being handled, as the stores see it (the /v1 key check has run). */
export function viewerOf(access: KeyAccess): Viewer {
  const policy = access.current();
  return { keyId: policy?.id ?? null, admin: policy?.admin ?? false };
}
