/**
 * postgres://user@host:port/db, without the password (nor the query string, which may carry one:
 * ?password=, sslpassword, sslkey…). No pg import: the SQLite bot never loads pg.
 */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/:@/, '@');
  } catch {
    return 'postgres://(unreadable URL)';
  }
}
