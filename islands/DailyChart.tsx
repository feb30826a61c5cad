/**
 * A form's daily views, starts and submissions as an SVG line chart. Series can be
 * switched on and off; the arrow keys (or a pointer) pick a day whose figures are read
 * out. A table with the same numbers sits beside it for screen readers.
 * @module
 */
import { useState } from "preact/hooks";
import type { DailyAnalytics } from "@/lib/forms/analytics.ts";
import { count } from "@/components/count.ts";

/** Props: the zero-filled series, oldest day first. */
export interface DailyChartProps {
  daily: DailyAnalytics[];
  [key: string]: unknown;
}

const SERIES = [
  { key: "views", label: "Views", color: "#8c959f" },
  { key: "starts", label: "Starts", color: "#0b5cd5" },
  { key: "submissions", label: "Submissions", color: "#1a7f37" },
] as const;
type SeriesKey = typeof SERIES[number]["key"];
const W = 900;
const H = 200;
const PAD = { l: 8, r: 8, t: 10, b: 10 };
const SPANS = [7, 30, 90];

/** The chart island. */
export default function DailyChart({ daily }: DailyChartProps) {
  const spans = SPANS.filter((s) => s < daily.length).concat(daily.length);
  const [span, setSpan] = useState(Math.min(30, daily.length));
  const [on, setOn] = useState<Record<SeriesKey, boolean>>({
    views: true,
    starts: true,
    submissions: true,
  });
  const days = daily.slice(-span);
  const [pick, setPick] = useState(days.length - 1);
  const at = Math.min(pick, days.length - 1);
  const max = Math.max(
    1,
    ...days.flatMap((d) => SERIES.filter((s) => on[s.key]).map((s) => d[s.key])),
  );
  const x = (i: number) =>
    PAD.l + (days.length <= 1 ? 0 : (i * (W - PAD.l - PAD.r)) / (days.length - 1));
  const y = (v: number) => PAD.t + (H - PAD.t - PAD.b) * (1 - v / max);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowLeft") setPick(Math.max(0, at - 1));
    else if (e.key === "ArrowRight") setPick(Math.min(days.length - 1, at + 1));
    else return;
    e.preventDefault();
  };
  const onMove = (e: PointerEvent) => {
    const svg = e.currentTarget as SVGSVGElement;
    const r = svg.getBoundingClientRect();
    const px = ((e.clientX - r.left) / r.width) * W;
    const i = Math.round(((px - PAD.l) / (W - PAD.l - PAD.r)) * (days.length - 1));
    setPick(Math.max(0, Math.min(days.length - 1, i)));
  };
  const d = days[at];
  if (!days.length) return <p class="muted">No data in the retention window.</p>;
  return (
    <div class="chart">
      <div class="chart-tools">
        {SERIES.map((s) => (
          <button
            type="button"
            class={`chip ${s.key}`}
            aria-pressed={on[s.key] ? "true" : "false"}
            onClick={() => setOn({ ...on, [s.key]: !on[s.key] })}
          >
            {s.label}
          </button>
        ))}
        <span class="spacer" />
        {spans.map((n) => (
          <button
            type="button"
            class="chip"
            aria-pressed={span === n ? "true" : "false"}
            onClick={() => {
              setSpan(n);
              setPick(n - 1);
            }}
          >
            {n} days
          </button>
        ))}
      </div>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        tabIndex={0}
        aria-label={`Daily activity, last ${days.length} days. Use left and right arrows to pick a day.`}
        onKeyDown={onKey}
        onPointerMove={onMove}
      >
        <line x1={PAD.l} x2={W - PAD.r} y1={y(0)} y2={y(0)} stroke="#d0d7de" />
        <line x1={PAD.l} x2={W - PAD.r} y1={y(max)} y2={y(max)} stroke="#eaeef2" />
        <line x1={x(at)} x2={x(at)} y1={PAD.t} y2={y(0)} stroke="#ffb000" />
        {SERIES.filter((s) => on[s.key]).map((s) => (
          <polyline
            fill="none"
            stroke={s.color}
            stroke-width="2"
            points={days.map((day, i) => `${x(i).toFixed(1)},${y(day[s.key]).toFixed(1)}`).join(
              " ",
            )}
          />
        ))}
      </svg>
      {/* Axis labels in HTML: text inside the scaled SVG shrinks to nothing on a phone. */}
      <div class="chart-labels" aria-hidden="true">
        <span>{days[0].date}</span>
        <span>top line: {max} a day</span>
        <span>{days[days.length - 1].date}</span>
      </div>
      <p class="chart-readout" aria-live="polite">
        <strong>{d.date}</strong>: {count(d.views, "view")} · {count(d.starts, "start")} ·{" "}
        {count(d.submissions, "submission")}
      </p>
    </div>
  );
}
