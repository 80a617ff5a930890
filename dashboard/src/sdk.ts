/**
 * The part of Hermes' dashboard plugin SDK this tab uses (`window.__HERMES_PLUGIN_SDK__`, Hermes
 * 0.19: hermes_cli/web_dist, sdkVersion 1.1.0): React, its hooks, fetchJSON (Hermes' own session
 * auth) and the Card components; `window.__HERMES_PLUGINS__.register(name, Component)` adds the tab.
 *
 * Invariant: types only, no code; anything the SDK may lack is optional here and checked before use.
 */
export type Node = unknown;
export type Props = Record<string, unknown> | null;
export type Component = (props: Record<string, unknown>) => Node;

export interface React {
  createElement(type: string | Component, props?: Props, ...children: unknown[]): Node;
}

export interface Sdk {
  sdkVersion?: string;
  React: React;
  hooks: {
    useState<T>(init: T): [T, (v: T) => void];
    // biome-ignore lint/suspicious/noConfusingVoidType: React's own signature: an effect returns nothing or its cleanup
    useEffect(fn: () => void | (() => void), deps: unknown[]): void;
    useRef<T>(init: T): { current: T };
  };
  fetchJSON(url: string, init?: Record<string, unknown>): Promise<unknown>;
  components?: Partial<Record<'Card' | 'CardHeader' | 'CardTitle' | 'CardContent' | 'Badge' | 'Button', Component>>;
}

export interface Plugins {
  register(name: string, component: Component): void;
}

declare global {
  interface Window {
    __HERMES_PLUGIN_SDK__?: Sdk;
    __HERMES_PLUGINS__?: Plugins;
  }
}
