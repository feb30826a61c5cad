/**
 * The typed page convention (after Fresh 2's `define`): a page module exports
 * `handler = define.handlers({ GET(ctx) { return page(data) } })` and
 * `default = define.page<typeof handler>(({ data }) => ...)`, so the component receives
 * exactly the data its handler renders.
 * @module
 */
import type { ComponentType } from "preact";

/** Options of a rendered page. */
export interface PageOptions {
  status?: number;
  /** The document title (the area adds its suffix). */
  title?: string;
  /** Response headers on top of the area's defaults. */
  headers?: Record<string, string>;
  /** The document's language (BCP 47); the area's default when omitted. */
  lang?: string;
}

/** A handler's request to render its module's component with `data`. */
export interface PageResult<T> extends PageOptions {
  readonly kind: "page";
  data: T;
}

/** Renders the module's default component with `data`. */
export function page<T>(data: T, opts: PageOptions = {}): PageResult<T> {
  return { kind: "page", data, ...opts };
}

/** A handler answers with a page to render or a finished response (a redirect, a file). */
export type HandlerResult<T> = Response | PageResult<T> | Promise<Response | PageResult<T>>;

/** GET and POST handlers of one page module over a context `Ctx`. */
export interface Handlers<Ctx, T> {
  GET?: (ctx: Ctx) => HandlerResult<T>;
  POST?: (ctx: Ctx) => HandlerResult<T>;
}

/** The data type a module's handlers render. */
export type DataOf<H, Ctx> = H extends Handlers<Ctx, infer T> ? T : never;

/** A page module as the area's router mounts it. */
export interface PageModule<Ctx, T, Props> {
  handler: Handlers<Ctx, T>;
  default?: ComponentType<Props & { data: T }>;
}

/** The `define` helpers of an area whose handlers get `Ctx` and pages get `Props` + data. */
export interface Define<Ctx, Props> {
  /** Identity at run time; fixes the handlers' context type and infers their data type. */
  handlers<T = never>(handlers: Handlers<Ctx, T>): Handlers<Ctx, T>;
  /** Identity at run time; types the component's `data` as its handler's. */
  page<H extends Handlers<Ctx, unknown>>(
    component: ComponentType<Props & { data: DataOf<H, Ctx> }>,
  ): ComponentType<Props & { data: DataOf<H, Ctx> }>;
}

/** Makes an area's `define` (admin pages, hosted pages). */
export function createDefine<Ctx, Props>(): Define<Ctx, Props> {
  return {
    handlers: (handlers) => handlers,
    page: (component) => component,
  };
}

/** Whether a handler's answer asks for its page (rather than being a response). */
export function isPageResult<T>(result: Response | PageResult<T>): result is PageResult<T> {
  return !(result instanceof Response);
}
