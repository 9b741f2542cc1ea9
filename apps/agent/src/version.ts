/** This agent's version, sent in `hello` and compared by `update self`. Keep in step with package.json. */
export const agentVersion = '0.1.0';
