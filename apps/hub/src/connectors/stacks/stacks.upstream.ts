/**
 * Portainer answers as the hub reads them (../shared/design/upstreams.md §4): bare JSON, PascalCase, integer
 * enums and epoch-second dates, `null` where a list is empty. Only the fields the hub reads are described.
 */
import { Type, type Static, type TSchema } from 'typebox';

const Maybe = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

export const PortainerEndpoint = Type.Object({
  Id: Type.Integer(),
  Name: Type.String(),
  /** 1 docker, 2 agent, 3 azure, 4 edge agent, 5 local k8s, 6 k8s agent, 7 edge k8s */
  Type: Type.Integer(),
  URL: Maybe(Type.String()),
  /** 1 up, 2 down */
  Status: Type.Integer(),
  Snapshots: Maybe(
    Type.Array(
      Type.Object({
        DockerVersion: Maybe(Type.String()),
        RunningContainerCount: Maybe(Type.Integer()),
        StoppedContainerCount: Maybe(Type.Integer()),
      }),
    ),
  ),
});
export type PortainerEndpoint = Static<typeof PortainerEndpoint>;
export const PortainerEndpoints = Type.Array(PortainerEndpoint);

export const PortainerStack = Type.Object({
  Id: Type.Integer(),
  Name: Type.String(),
  /** 1 swarm, 2 compose, 3 kubernetes */
  Type: Type.Integer(),
  EndpointId: Type.Integer(),
  /** 1 active, 2 inactive */
  Status: Type.Integer(),
  CreationDate: Maybe(Type.Integer()),
  CreatedBy: Maybe(Type.String()),
  /** 0 when never updated. */
  UpdateDate: Maybe(Type.Integer()),
  Env: Maybe(Type.Array(Type.Object({ name: Type.String(), value: Maybe(Type.String()) }))),
});
export type PortainerStack = Static<typeof PortainerStack>;
export const PortainerStacks = Type.Array(PortainerStack);
