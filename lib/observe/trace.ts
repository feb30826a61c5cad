/**
 * Formwell's spans, through `@opentelemetry/api` over Deno's built-in OpenTelemetry
 * (`OTEL_DENO=true`, exported over OTLP). Off (no tracer) unless the composition root
 * enables them: each helper then just runs its function. A job carries the W3C
 * `traceparent` of the context that enqueued it, and its span continues that trace.
 * @module
 */
import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";

let tracer: Tracer | null = null;

/** Turns Formwell's spans on (the composition root, with `OTEL_DENO`). */
export function enableTraces(): void {
  tracer = trace.getTracer("formwell");
}

/** Runs `fn` in a span named `name` (a child of the current one); a throw marks it failed. */
export function inSpan<T>(name: string, fn: () => Promise<T>, attributes?: Attributes): Promise<T> {
  if (!tracer) return fn();
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The current span's W3C `traceparent`, to carry in a job; undefined when not tracing. */
export function currentTraceparent(): string | undefined {
  if (!tracer) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** Adds the current `traceparent` to a job about to be enqueued (unchanged when not tracing). */
export function traced<T extends { trace?: string }>(job: T): T {
  const traceparent = currentTraceparent();
  return traceparent ? { ...job, trace: traceparent } : job;
}

/** Runs `fn` in a span continuing the trace of `traceparent` (a new trace without one). */
export function inJobSpan<T>(
  name: string,
  traceparent: string | undefined,
  fn: () => Promise<T>,
  attributes?: Attributes,
): Promise<T> {
  if (!tracer) return fn();
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  return context.with(parent, () => inSpan(name, fn, attributes));
}
