import { Argv, GLOBAL_OPTIONS, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';
import { ExitCode } from '../io.js';

interface CompletionArgs {
  shell?: string;
}

const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
type Shell = (typeof SHELLS)[number];

export const completionCommand: Command<CompletionArgs> = {
  command: 'completion [shell]',
  describe: 'Print a shell completion script (bash, zsh, fish or powershell): commands, their options and option values',
  builder: (y) =>
    y
      .usage('$0 completion [shell]\n\nPrints a script that completes iostore\'s commands, options and option values (files elsewhere). Load it from your shell\'s start-up file, as the examples show.')
      .positional('shell', { type: 'string', choices: SHELLS, describe: 'bash (default), zsh, fish or powershell' })
      .example('$0 completion bash >> ~/.bashrc', 'or: source <(iostore completion bash)')
      .example('$0 completion zsh >> ~/.zshrc', '')
      .example('$0 completion fish > ~/.config/fish/completions/iostore.fish', '')
      .example('iostore completion powershell | Out-String | Invoke-Expression', 'in a PowerShell profile') as never,
  async run(args, io, context) {
    // The parser has checked the name against SHELLS.
    const shell = (args.shell ?? 'bash') as Shell;
    const commands = (await context.loadCommands()).map((c) => ({ name: c.command.split(' ')[0]!, describe: c.describe, options: optionsOf(c.builder(new Argv())) }));
    io.out(SCRIPTS[shell](commands, optionsOf(new Argv())));
    return ExitCode.Ok;
  },
};

/** An option as completion needs it: every name it answers to, and what its value can be. */
interface Flag {
  names: string[];
  describe: string;
  value: boolean;
  choices: string[];
}
interface CommandFlags {
  name: string;
  describe: string;
  options: Flag[];
}

function optionsOf(spec: Argv): Flag[] {
  const all = new Map<string, OptionSpec>([...spec.options, ...GLOBAL_OPTIONS]);
  return [...all].map(([name, o]) => ({
    names: [`--${name}`, ...(o.aliases ?? []).map((a) => `--${a}`), ...(o.type === 'boolean' && o.default === true ? [`--no-${name}`] : []), ...(o.alias ? [`-${o.alias}`] : [])],
    describe: (o.describe ?? '').replace(/\s+/g, ' '),
    value: o.type !== 'boolean',
    choices: (o.choices ?? []).map(String),
  }));
}

const SCRIPTS: Record<Shell, (commands: CommandFlags[], globals: Flag[]) => string> = {
  bash: bashScript,
  zsh: (commands, globals) => `# iostore completion for zsh (through bash's completion functions)\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(commands, globals)}`,
  fish: fishScript,
  powershell: powershellScript,
};

const words = (flags: readonly Flag[]) => flags.flatMap((f) => f.names).join(' ');

/** Option values with fixed choices, per command: `--sort) words='index size'`. */
function choiceCases(flags: readonly Flag[], indent: string): string {
  return flags
    .filter((f) => f.choices.length > 0)
    .map((f) => `${indent}${f.names.filter((n) => n.startsWith('--')).join('|')}) COMPREPLY=($(compgen -W '${f.choices.join(' ')}' -- "$cur")); return ;;`)
    .join('\n');
}

function bashScript(commands: CommandFlags[], globals: Flag[]): string {
  const valued = [...new Set([...globals, ...commands.flatMap((c) => c.options)].filter((f) => f.value).flatMap((f) => f.names.filter((n) => n.startsWith('--'))))];
  return `# iostore completion for bash: source <(iostore completion bash)
_iostore() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i w
  # The command is the first word that is neither an option nor an option's value.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${valued.join('|')}) ((i++)) ;;
      -*) ;;
      *) cmd="$w"; break ;;
    esac
  done
  local opts
  case "$cmd" in
${commands.map((c) => `    ${c.name}) opts='${words(c.options)}' ;;`).join('\n')}
    '')
      if [[ "$cur" != -* ]]; then COMPREPLY=($(compgen -W '${commands.map((c) => c.name).join(' ')}' -- "$cur")); return; fi
      opts='${words(globals)} --version -V' ;;
    *) return ;;
  esac
  case "$cmd:$prev" in
${commands
  .map((c) => choiceCases(c.options, `    ${c.name}:`).replace(new RegExp(`\\|(?=--)`, 'g'), `|${c.name}:`))
  .filter((t) => t !== '')
  .join('\n')}
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); fi
}
complete -o default -o bashdefault -F _iostore iostore
`;
}

const fishQuote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fishScript(commands: CommandFlags[], globals: Flag[]): string {
  const lines = ['# iostore completion for fish: iostore completion fish > ~/.config/fish/completions/iostore.fish', 'complete -c iostore -f'];
  const names = commands.map((c) => c.name).join(' ');
  for (const c of commands) lines.push(`complete -c iostore -n 'not __fish_seen_subcommand_from ${names}' -a ${c.name} -d ${fishQuote(c.describe.slice(0, 80))}`);
  const flag = (f: Flag, cond: string) => {
    const parts = f.names.filter((n) => !n.startsWith('--no-')).map((n) => (n.startsWith('--') ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`));
    const value = f.choices.length > 0 ? ` -x -a ${fishQuote(f.choices.join(' '))}` : f.value ? ' -r -F' : '';
    return `complete -c iostore -n ${fishQuote(cond)} ${parts.join(' ')}${value} -d ${fishQuote(f.describe.slice(0, 80))}`;
  };
  for (const f of globals) lines.push(flag(f, `not __fish_seen_subcommand_from ${names}`));
  for (const c of commands) {
    // Files complete as a command's arguments.
    lines.push(`complete -c iostore -n '__fish_seen_subcommand_from ${c.name}' -F`);
    for (const f of c.options) lines.push(flag(f, `__fish_seen_subcommand_from ${c.name}`));
  }
  return `${lines.join('\n')}\n`;
}

function powershellScript(commands: CommandFlags[], globals: Flag[]): string {
  const table = commands.map((c) => `    '${c.name}' = @(${c.options.flatMap((f) => f.names.filter((n) => n.startsWith('--'))).map((n) => `'${n}'`).join(', ')})`).join('\n');
  const choices = [...new Map([...globals, ...commands.flatMap((c) => c.options)].filter((f) => f.choices.length > 0).map((f) => [f.names[0]!, f.choices])).entries()];
  return `# iostore completion for PowerShell: iostore completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName iostore -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $commands = @{
${table}
  }
  $globals = @(${globals.flatMap((f) => f.names.filter((n) => n.startsWith('--'))).map((n) => `'${n}'`).join(', ')}, '--version')
  $choices = @{
${choices.map(([n, c]) => `    '${n}' = @(${c.map((x) => `'${x}'`).join(', ')})`).join('\n')}
  }
  $words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
  if ($wordToComplete -ne '' -and $words.Count -gt 0) { $words = $words[0..($words.Count - 2)] }
  $cmd = $words | Where-Object { $commands.ContainsKey($_) } | Select-Object -First 1
  $prev = if ($words.Count -gt 0) { $words[-1] } else { '' }
  if ($choices.ContainsKey($prev)) { $candidates = $choices[$prev] }
  elseif (-not $cmd -and -not $wordToComplete.StartsWith('-')) { $candidates = $commands.Keys }
  elseif ($wordToComplete.StartsWith('-')) { $candidates = if ($cmd) { $commands[$cmd] } else { $globals } }
  else { return }
  $candidates | Where-Object { $_ -like "$wordToComplete*" } | Sort-Object | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`;
}
