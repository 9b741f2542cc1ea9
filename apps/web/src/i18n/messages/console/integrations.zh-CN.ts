import type { AreaTranslation } from './en.js';
import type { integrations as english } from './integrations.en.js';

export const integrations: AreaTranslation<typeof english> = {
  'integrations.needsKey': '需要 API 密钥：{need}。{how}',
  'integrations.needMcp': '助手能做的就是密钥能做的（其角色、作用域和允许的资产），因此查看者密钥只能读取',
  'integrations.needPrometheus': '作用域 {scope}，写入 {file}（仅 Prometheus 可读）',
  'integrations.needAnsible': '作用域 {a} 和 {b}（查看者密钥即可）',
  'integrations.createKey': '在“管理 → API 密钥”下创建密钥',
  'integrations.adminCreatesKeys': '管理员在“管理 → API 密钥”下创建密钥。',
  'integrations.prometheusAdmin': '每个组的导出器端口，以及将 Hub 指标远程写入 Prometheus：{how}',
  'integrations.prometheusAdminLink': '管理 → Prometheus',
  'integrations.prometheusAdminOther': '由管理员在“管理 → Prometheus”下设置。',
  'integrations.caNote':
    '此 Hub 的证书来自其自有 CA。通过 HTTPS 连接的客户端必须信任它：将该 CA 加入系统信任库（对于 Claude Code 等 Node.js 客户端，使用 {env}），或使用下方的 {mcp}，它使用 {login} 时固定的 CA。',
  'integrations.caDownload': '下载 CA',
  'integrations.mcpTitle': 'AI 助手（MCP）',
  'integrations.mcpText':
    'Hub 是一个 Model Context Protocol 服务器（Streamable HTTP）：助手可以列出资产、读取其状态并运行密钥允许的操作，每次工具调用都会像其使用的 API 路由一样被检查、限速和审计。',
  'integrations.mcpUrl': 'MCP URL',
  'integrations.claudeCodeCommand': 'Claude Code 命令',
  'integrations.vscodeText': '写在 {file} 中；VS Code 只询问一次密钥，并将其保存在它的机密存储中。',
  'integrations.vscodeConfig': 'VS Code 配置',
  'integrations.cursorText': '写在 {file} 中（或项目中的 {project}）；密钥来自 Cursor 启动环境中的 {env}。',
  'integrations.cursorConfig': 'Cursor 配置',
  'integrations.stdioTitle': 'Claude Desktop 及其他本地（stdio）客户端',
  'integrations.stdioText':
    '{mcp} 借助 svc 命令行保存的登录，把标准输入输出连接到 Hub，因此配置中既没有密钥也没有 CA。先让 CLI 登录一次（它会询问密钥），然后添加服务器（Claude Desktop：{file}）。',
  'integrations.svcLogin': 'svc login 命令',
  'integrations.stdioConfig': 'stdio 配置',
  'integrations.prometheusText':
    'Prometheus 通过 Hub 找到要抓取的目标（HTTP 服务发现）：密钥可见的每个资产一个目标，以其组、平台和标签作为 label。',
  'integrations.scrapeConfig': 'Prometheus 抓取配置',
  'integrations.caFile': '{caFile} 是此 Hub 的 CA，按上方 AI 助手一节的方式下载。',
  'integrations.ansibleText':
    '{inventory} 是一个 Ansible 清单脚本：资产即主机（带有 {host} 和 {vars} 变量），Hub 的组即组。Ansible 通过一个可执行的包装脚本运行它，该脚本使用 svc 命令行保存的登录。',
  'integrations.svcLoginAnsible': '用于 Ansible 的 svc login 命令',
  'integrations.ansibleCommands': 'Ansible 命令',
  'integrations.ansibleDocs': '主机和组名、变量及限制：{doc}。',
  'integrations.loading': '正在读取 Hub 的证书',
  'integrations.intro': '此 Hub（{origin}）上的其他工具：复制一段代码片段，并在指定位置填入你的密钥。',
  'integrations.noCa': 'Hub 未说明其证书是否来自自有 CA，因此这些片段不固定任何 CA。',
};
