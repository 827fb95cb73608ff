/**
 * Start-up failures a user can fix (a busy port, a database path that cannot be written), turned
 * into one line that says what to change, as bad settings are (ConfigError), instead of a stack.
 */

export class StartupError extends Error {
  override name = 'StartupError';
}

/** `server.listen` failed: the port is taken or may not be bound by this user. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  if (error.code === 'EADDRINUSE') {
    return new StartupError(`${where} is already in use (another server running?): stop it or set PORT to a free port`);
  }
  if (error.code === 'EACCES') return new StartupError(`not allowed to listen on ${where}: ports below 1024 need privileges; set PORT above 1023`);
  if (error.code === 'EADDRNOTAVAIL') return new StartupError(`cannot listen on ${where}: HOST is not an address of this machine`);
  return error;
}

/** The SQLite file or its directory could not be created or opened. */
export function databaseOpenError(error: NodeJS.ErrnoException, path: string): Error {
  const fsCodes = ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOENT', 'ENOSPC', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM'];
  if (error.code === undefined || !fsCodes.includes(error.code)) return error;
  return new StartupError(
    `cannot open the database at ${path} (${error.code}: ${error.message}): make its directory writable or set DATABASE_URL=sqlite:<writable path>`,
  );
}
