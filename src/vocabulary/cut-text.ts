/**
 * Cutting user text to a platform limit without breaking a character. Limits are counted in
 * UTF-16 code units (what both platforms measure), but a cut lands only on a grapheme boundary
 * (Intl.Segmenter), so an emoji, a flag or a letter with its accents is kept whole or left out:
 * never half a surrogate pair, which either platform may refuse.
 */
// Made on the first cut, not at start: ICU's break rules are resident memory an idle bot need not hold (issue 18).
let graphemes: Intl.Segmenter | undefined;

/**
 * A UTF-16 unit that starts and ends a grapheme of its own beside another such unit: printable
 * ASCII, or a line feed (a break always falls after LF, and before it unless a CR precedes,
 * which is not in this set). Between two of them there is always a grapheme boundary (UAX #29:
 * none of them is Extend, ZWJ, SpacingMark, Prepend, Hangul or a regional indicator).
 */
const plain = (c: number): boolean => (c >= 0x20 && c <= 0x7e) || c === 0x0a;

/**
 * The longest start of `text` at most `maxUnits` UTF-16 units long that ends between graphemes.
 *
 * ICU walks the text from its start, grapheme by grapheme: a digest of a thousand events cut
 * to Slack's 3,000 units took milliseconds of the event loop per cut (issue 18). So where the
 * cut falls between two plain units (above) it is a boundary, known without ICU; otherwise
 * only the stretch from the last such pair before the cut is segmented (a boundary, so what
 * follows it segments as in the whole text), and the whole text only when there is none.
 */
export function graphemePrefix(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  if (maxUnits <= 0) return '';
  if (plain(text.charCodeAt(maxUnits - 1)) && plain(text.charCodeAt(maxUnits))) return text.slice(0, maxUnits);
  let from = maxUnits - 1;
  while (from > 0 && !(plain(text.charCodeAt(from - 1)) && plain(text.charCodeAt(from)))) from--;
  let end = from;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  // Up to the first grapheme that ends past the cut: a grapheme that crosses it is left out whole.
  for (const { index, segment } of graphemes.segment(text.slice(from))) {
    if (from + index + segment.length > maxUnits) break;
    end = from + index + segment.length;
  }
  return text.slice(0, end);
}

/** `text` cut to at most `max` units, ending with `ellipsis` when it was cut. */
export function cutText(text: string, max: number, ellipsis = '…'): string {
  if (text.length <= max) return text;
  return graphemePrefix(text, Math.max(0, max - ellipsis.length)) + ellipsis;
}
