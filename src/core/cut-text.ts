/**
 * Cutting user text to a platform limit without breaking a character. Limits are counted in
 * UTF-16 code units (what both platforms measure), but a cut lands only on a grapheme boundary
 * (Intl.Segmenter), so an emoji, a flag or a letter with its accents is kept whole or left out:
 * never half a surrogate pair, which either platform may refuse.
 */
// Made on the first cut, not at start: ICU's break rules are resident memory an idle bot need not hold (issue 18).
let graphemes: Intl.Segmenter | undefined;

/** The longest start of `text` at most `maxUnits` UTF-16 units long that ends between graphemes. */
export function graphemePrefix(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  if (maxUnits <= 0) return '';
  let end = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { index, segment } of graphemes.segment(text)) {
    if (index + segment.length > maxUnits) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/** `text` cut to at most `max` units, ending with `ellipsis` when it was cut. */
export function cutText(text: string, max: number, ellipsis = '…'): string {
  if (text.length <= max) return text;
  return graphemePrefix(text, Math.max(0, max - ellipsis.length)) + ellipsis;
}
