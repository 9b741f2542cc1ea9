/**
 * What an agent says about itself is shown in the console, in events and in logs: its free text is cleaned
 * once, as the hello arrives, so every reader gets the same safe text (display-text.ts in protocol).
 */
import { sanitizeDisplayText, type Hello } from '@svc/protocol';

/** The hello with its hostname, OS, architecture and version stripped of controls and escape sequences. */
export function cleanHello(hello: Hello): Hello {
  return {
    ...hello,
    hostname: sanitizeDisplayText(hello.hostname),
    os_release: sanitizeDisplayText(hello.os_release),
    arch: sanitizeDisplayText(hello.arch),
    agent_version: sanitizeDisplayText(hello.agent_version),
  };
}
