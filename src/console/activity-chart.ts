import type { ActivationHour } from '../domain/admin-lists/activation-hours.js';
import { html, trusted, type Html } from '../html.js';

const BAR_WIDTH = 5;
const HEIGHT = 120;
const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The stacked parts of a bar, bottom up, with the class that colours them (console.css). */
const PARTS = [
  ['confirmed', 'bar-confirmed'],
  ['released', 'bar-released'],
  ['activated', 'bar-waiting'],
] as const;

/**
 * Activations per hour as an inline `<svg>` drawn on the server: one bar an hour, confirmed at the
 * bottom, released above, still waiting for confirm on top, over whole UTC days. The day labels are
 * HTML under it (they stay readable at any width, where text inside a scaled `<svg>` would not); the
 * totals are its text alternative.
 */
export function renderActivityChart(hours: ActivationHour[]): Html {
  const totals = { confirmed: 0, released: 0, activated: 0 };
  let tallest = 0;
  for (const { counts } of hours) {
    totals.confirmed += counts.confirmed;
    totals.released += counts.released;
    totals.activated += counts.activated;
    tallest = Math.max(tallest, counts.confirmed + counts.released + counts.activated);
  }
  const scale = tallest === 0 ? 0 : HEIGHT / tallest;
  const bars = hours.flatMap(({ counts }, i) => {
    let y = HEIGHT;
    return PARTS.filter(([status]) => counts[status] > 0).map(([status, cls]) => {
      const h = Math.max(1, counts[status] * scale);
      y -= h;
      return `<rect class="${cls}" x="${i * BAR_WIDTH + 0.5}" y="${y.toFixed(2)}" width="${BAR_WIDTH - 1}" height="${h.toFixed(2)}"></rect>`;
    });
  });
  // A faint line at each midnight but the first: the day labels below share the width equally, as the days do.
  const midnights = hours.flatMap(({ start }, i) =>
    i > 0 && start.getUTCHours() === 0
      ? [
          `<line class="chart-day" vector-effect="non-scaling-stroke" x1="${i * BAR_WIDTH}" x2="${i * BAR_WIDTH}" y1="0" y2="${HEIGHT}"></line>`,
        ]
      : [],
  );
  const days = hours.filter(({ start }) => start.getUTCHours() === 0);
  const summary = `Activations per hour over the last ${days.length} days (UTC): ${totals.confirmed} confirmed, ${totals.released} released, ${totals.activated} waiting for confirm. The busiest hour had ${tallest}.`;
  const width = hours.length * BAR_WIDTH;
  return html`<figure class="chart">
    <svg viewBox="0 0 ${width} ${HEIGHT}" width="100%" height="${HEIGHT}" preserveAspectRatio="none" role="img" aria-labelledby="chart-summary">
      <line class="chart-axis" vector-effect="non-scaling-stroke" x1="0" x2="${width}" y1="${HEIGHT}" y2="${HEIGHT}"></line>${trusted(midnights.join(''))}${trusted(bars.join(''))}
    </svg>
    <ol class="chart-days" aria-hidden="true">${days.map(({ start }) => html`<li><span>${DAY_NAMES[start.getUTCDay()]}</span> <span>${start.getUTCDate()}</span></li>`)}</ol>
    <figcaption id="chart-summary">${summary}</figcaption>
    <ul class="chart-legend">
      <li><span class="swatch bar-confirmed"></span>Confirmed ${totals.confirmed}</li>
      <li><span class="swatch bar-released"></span>Released ${totals.released}</li>
      <li><span class="swatch bar-waiting"></span>Waiting for confirm ${totals.activated}</li>
    </ul>
  </figure>`;
}
