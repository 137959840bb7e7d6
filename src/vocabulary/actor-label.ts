/** How a person is named in stored records and lists: `Ada (slack:UADMIN)`, or the id alone. */
import type { Actor } from './actors.js';

export function actorLabel(a: Pick<Actor, 'userId' | 'displayName'> & { platform: string }): string {
  return a.displayName ? `${a.displayName} (${a.platform}:${a.userId})` : `${a.platform}:${a.userId}`;
}
