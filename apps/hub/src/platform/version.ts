/** The hub's version, as /hub/status and the OpenAPI document report it. */
export const hubVersion = '0.1.0';
