// The one formatTime: reports (Dates, in a schedule's zone) and commands (Unix seconds, ISO strings) share it.
import { describe, expect, it } from 'vitest';
import { formatTime } from '../../src/vocabulary/format.js';

describe('formatTime', () => {
  const at = new Date(Date.UTC(2026, 10, 22, 9, 5, 30));

  it('shows a moment to the minute in UTC, whether it comes as a Date, Unix seconds or an ISO string', () => {
    const seconds = at.getTime() / 1000;
    expect(formatTime(at)).toBe('2026-11-22 09:05 UTC');
    expect(formatTime(seconds)).toBe(formatTime(at));
    expect(formatTime(BigInt(seconds))).toBe(formatTime(at));
    expect(formatTime(at.toISOString())).toBe(formatTime(at));
  });

  it('shows it in the zone given, named after the time', () => {
    expect(formatTime(at, 'Europe/Rome')).toBe('2026-11-22 10:05 Europe/Rome');
    expect(formatTime(at, 'America/New_York')).toBe('2026-11-22 04:05 America/New_York');
  });

  it('shows a dash for nothing and what came for something that is not a time', () => {
    expect(formatTime(undefined)).toBe('—');
    expect(formatTime(null)).toBe('—');
    expect(formatTime('soon')).toBe('soon');
  });
});
