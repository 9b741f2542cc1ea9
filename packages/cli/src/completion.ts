/**
 * `svc completion bash|zsh`: a completion script made from the command tree itself, so it never falls behind
 * the commands. It completes command names, options and the choices of options that have them; zsh loads
 * the bash function through bashcompinit.
 */
import type { Command, Option } from 'commander';

/** Each command's path (`assets ls`) and the words that may follow it. */
function completionTable(program: Command): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const visit = (command: Command, path: string) => {
    const words = [
      ...command.commands.map((c) => c.name()),
      ...command.options.map((o: Option) => o.long ?? o.short ?? '').filter((w) => w !== ''),
    ];
    if (command.commands.length === 0) words.push('--help');
    table.set(path, words);
    for (const option of command.options) {
      if (option.argChoices && option.long) table.set(`${path}|${option.long}`, [...option.argChoices]);
    }
    for (const child of command.commands)
      visit(child, path === '' ? child.name() : `${path} ${child.name()}`);
  };
  visit(program, '');
  return table;
}

function bashFunction(program: Command): string {
  const table = completionTable(program);
  const caseLines = (entries: [string, string[]][], indent: string) =>
    entries.map(([path, words]) => `${indent}'${path}') words='${words.join(' ')}' ;;`).join('\n');
  const entries = [...table.entries()];
  const commandCases = caseLines(
    entries.filter(([path]) => !path.includes('|')),
    '    ',
  );
  const choiceCases = caseLines(
    entries.filter(([path]) => path.includes('|')),
    '      ',
  );
  const commandPaths = [...table.keys()].filter((p) => p !== '' && !p.includes('|'));
  return `_svc_complete() {
  local cur prev path w i words candidate
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path=''
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -- ]] && return 0
    [[ "$w" == -* ]] && continue
    if [[ -z "$path" ]]; then candidate="$w"; else candidate="$path $w"; fi
    case "$candidate" in
      ${commandPaths.map((p) => `'${p}'`).join('|')}) path="$candidate" ;;
    esac
  done
  words=''
  if [[ "$prev" == --* ]]; then
    case "$path|$prev" in
${choiceCases}
    esac
    [[ -n "$words" ]] && { COMPREPLY=($(compgen -W "$words" -- "$cur")); return 0; }
  fi
  case "$path" in
${commandCases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _svc_complete svc
`;
}

export function completionScript(shell: 'bash' | 'zsh', program: Command): string {
  const body = bashFunction(program);
  if (shell === 'bash')
    return `# svc completion for bash: eval "$(svc completion bash)" in ~/.bashrc\n${body}`;
  return `#compdef svc\n# svc completion for zsh: eval "$(svc completion zsh)" in ~/.zshrc\nautoload -U +X bashcompinit && bashcompinit\n${body}`;
}
