/** postgres://user@host:port/db, without the password (no pg import: the SQLite bot never loads pg). */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString().replace(/:@/, '@');
  } catch {
    return 'postgres://(unreadable URL)';
  }
}
