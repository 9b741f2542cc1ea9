/**
 * What the hub counts about itself, behind one small interface: the pieces that count (HTTP, the agent gateway,
 * exec, webhooks, connectors) are given a `Telemetry` and know nothing of Prometheus. prometheus.ts is the one
 * implementation that exports it; `noTelemetry` is for pieces built without one (tests of a single module).
 *
 * Labels are bounded by construction: routes are the contracts' templates (never a raw URL), methods and
 * outcomes come from short fixed lists, connector kinds from the registry.
 */

type FrameDirection = 'in' | 'out';
type DeliveryOutcome = 'delivered' | 'failed';
type CallOutcome = 'ok' | 'error';

interface HttpSample {
  /** The route's template (`/api/v2/assets/:id`), or `unmatched` for a path no route answers. */
  route: string;
  method: string;
  status: number;
  seconds: number;
}

export interface Telemetry {
  httpRequest(sample: HttpSample): void;
  /** One WebSocket frame between the hub and an agent, and its size. */
  agentFrame(direction: FrameDirection, bytes: number): void;
  /** One exec fan-out finished: how many targets, and how long it took. */
  fanOut(targets: number, seconds: number): void;
  /** One webhook delivery attempt's outcome. */
  webhookDelivery(outcome: DeliveryOutcome): void;
  /** One call (or periodic check) to a connector's upstream. */
  connectorCall(kind: string, outcome: CallOutcome): void;
}

export const noTelemetry: Telemetry = {
  httpRequest: () => undefined,
  agentFrame: () => undefined,
  fanOut: () => undefined,
  webhookDelivery: () => undefined,
  connectorCall: () => undefined,
};
