/** This CLI's version (`svc --version`). Keep in step with package.json. */
export const cliVersion = '0.1.0';
