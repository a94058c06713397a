/**
 * A stacked bar chart as SVG of our own: a few dozen lines where a chart library would cost tens of kilobytes. Colours
 * come from classes (the stylesheet's custom properties), never inline styles, so light and dark both hold and the
 * strict CSP has nothing to refuse. The figures are in a table beside it: the chart is never the only way to read them.
 */

const svgNamespace = 'http://www.w3.org/2000/svg';

export interface BarSeries {
  /** The class of its bars (and its legend's swatch). */
  readonly className: string;
  readonly label: string;
}

export interface Bar {
  /** Where the bar stands, 0 to `slots - 1`. */
  readonly slot: number;
  /** One value per series, stacked in the series' order. */
  readonly values: readonly number[];
}

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(svgNamespace, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/**
 * Draws stacked bars over `slots` equal slots (a time range's buckets), scaled to the tallest; `describedBy` names the
 * table that holds the same figures.
 */
export function stackedBars(
  title: string,
  series: readonly BarSeries[],
  bars: readonly Bar[],
  slots: number,
  describedBy: string,
): SVGSVGElement {
  const width = 600;
  const height = 120;
  const tallest = Math.max(1, ...bars.map((bar) => bar.values.reduce((sum, value) => sum + value, 0)));
  const slotWidth = width / Math.max(1, slots);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    class: 'chart',
    role: 'img',
    'aria-label': `${title}: the table after it holds the figures`,
    'aria-describedby': describedBy,
    preserveAspectRatio: 'none',
  });
  chart.append(svg('line', { x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5, class: 'axis' }));
  for (const bar of bars) {
    let top = height;
    bar.values.forEach((value, index) => {
      if (value <= 0) return;
      const size = (value / tallest) * (height - 4);
      top -= size;
      chart.append(
        svg('rect', {
          x: bar.slot * slotWidth,
          y: top,
          width: Math.max(1, slotWidth * 0.8),
          height: size,
          class: series[index]?.className ?? '',
        }),
      );
    });
  }
  return chart;
}
