/**
 * Draws a chart server-side: a Vega-Lite spec is compiled to Vega, rendered to SVG by Vega's
 * headless view (no canvas, no DOM), and the SVG rasterised to PNG by resvg.
 *
 * Why these: Vega-Lite says what a chart shows (series, axes with units, a legend) in a few
 * lines of data and gets the rest right; Vega renders it to SVG in plain JavaScript; resvg-js
 * ships its renderer compiled inside npm packages (one per platform, chosen by npm), so nothing
 * is downloaded at install time, unlike canvas or chartjs-node-canvas. The slim Docker image has
 * no fonts: DejaVu Sans comes from the dejavu-fonts-ttf package and is the only font resvg loads,
 * so a chart looks the same on every machine.
 */
import { createRequire } from 'node:module';
import type { TopLevelSpec } from 'vega-lite';

const require = createRequire(import.meta.url);
/** The font every chart is drawn with. */
export const CHART_FONT = 'DejaVu Sans';
const FONT_FILES = [require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'), require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')];

/**
 * Slack shows an image at about 360 px wide in the channel before it is opened: text drawn at
 * 15–18 px on an 900 px wide image stays readable there, and sharp when opened.
 */
export const CHART_WIDTH = 900;
export const CHART_FONT_SIZE = 16;

/** Look shared by every chart: the one font, sizes readable at Slack's preview size. */
export const CHART_CONFIG = {
  font: CHART_FONT,
  background: 'white',
  axis: { labelFontSize: CHART_FONT_SIZE - 1, titleFontSize: CHART_FONT_SIZE, titleFontWeight: 'bold', labelLimit: 220 },
  legend: {
    labelFontSize: CHART_FONT_SIZE - 1,
    titleFontSize: CHART_FONT_SIZE,
    orient: 'bottom',
    direction: 'horizontal',
    columns: 3,
    labelLimit: 380,
    titleLimit: 600,
    symbolSize: 160,
    symbolStrokeWidth: 4,
  },
  title: { fontSize: CHART_FONT_SIZE + 3, anchor: 'start', offset: 12 },
  header: { labelFontSize: CHART_FONT_SIZE, titleFontSize: CHART_FONT_SIZE },
  line: { strokeWidth: 3 },
  point: { size: 50, filled: true },
  view: { stroke: null },
} as const;

export interface RenderedChart {
  png: Buffer;
  width: number;
  height: number;
}

type Vega = typeof import('vega');
type VegaLite = typeof import('vega-lite');
let libs: Promise<{ vega: Vega; compile: VegaLite['compile'] }> | undefined;

/**
 * Vega and Vega-Lite, loaded on the first chart (they are large, and most runs draw none).
 * Vega-Lite installs a zero-argument Set.prototype.toJSON when it loads; the primordials that
 * discord.js's event emitter builds at its own load call every zero-argument Set method and
 * break on that one. The same function taking JSON.stringify's `key` argument is not called.
 */
function loadLibs(): Promise<{ vega: Vega; compile: VegaLite['compile'] }> {
  libs ??= (async () => {
    const had = Object.getOwnPropertyDescriptor(Set.prototype, 'toJSON');
    const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
    const added = Object.getOwnPropertyDescriptor(Set.prototype, 'toJSON');
    if (!had && typeof added?.value === 'function') {
      const toJSON = added.value as (this: Set<unknown>) => unknown;
      Object.defineProperty(Set.prototype, 'toJSON', {
        ...added,
        value: function (this: Set<unknown>, _key?: string) {
          return toJSON.call(this);
        },
      });
    }
    return { vega, compile: vl.compile };
  })();
  return libs;
}

/** SVG of a Vega-Lite spec (with CHART_CONFIG under its own config). */
export async function chartSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, compile } = await loadLibs();
  const full = { ...spec, config: { ...CHART_CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec;
  const view = new vega.View(vega.parse(compile(full).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** PNG of a Vega-Lite spec, drawn CHART_WIDTH wide. */
export async function renderChart(spec: TopLevelSpec): Promise<RenderedChart> {
  const svg = await chartSvg(spec);
  // Loaded on the first chart, like Vega: an idle bot does not hold the rasteriser.
  const { Resvg } = await import('@resvg/resvg-js');
  const resvg = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'width', value: CHART_WIDTH },
    font: { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: CHART_FONT, sansSerifFamily: CHART_FONT },
  });
  const image = resvg.render();
  return { png: image.asPng(), width: image.width, height: image.height };
}
