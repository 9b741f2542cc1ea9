import type { AreaTranslation } from './en.js';
import type { integrations as english } from './integrations.en.js';

export const integrations: AreaTranslation<typeof english> = {
  'integrations.needsKey': 'Necesita una clave de API: {need}. {how}',
  'integrations.needMcp':
    'el asistente puede hacer lo que puede la clave (su rol, ámbitos y activos permitidos), así que una clave de lector solo lee',
  'integrations.needPrometheus': 'el ámbito {scope}, guardada en {file} (legible solo por Prometheus)',
  'integrations.needAnsible': 'los ámbitos {a} y {b} (basta una clave de lector)',
  'integrations.createKey': 'Crear una clave en Administración → Claves de API',
  'integrations.adminCreatesKeys': 'Un administrador crea las claves en Administración → Claves de API.',
  'integrations.prometheusAdmin':
    'Puertos de exportador por grupo y remote write de las métricas del hub a Prometheus: {how}',
  'integrations.prometheusAdminLink': 'Administración → Prometheus',
  'integrations.prometheusAdminOther': 'un administrador los configura en Administración → Prometheus.',
  'integrations.caNote':
    'El certificado de este hub procede de su propia CA. Un cliente que se conecte por HTTPS debe confiar en ella: añada la CA al almacén de confianza del sistema (o, para clientes Node.js como Claude Code, {env}), o use {mcp} más abajo, que usa la CA fijada en {login}.',
  'integrations.caDownload': 'Descarga de la CA',
  'integrations.mcpTitle': 'Asistentes de IA (MCP)',
  'integrations.mcpText':
    'El hub es un servidor Model Context Protocol (Streamable HTTP): un asistente lista activos, lee su estado y ejecuta lo que la clave permite; cada llamada a una herramienta se comprueba, se limita y se audita como la ruta de API que usa.',
  'integrations.mcpUrl': 'URL de MCP',
  'integrations.claudeCodeCommand': 'Comando de Claude Code',
  'integrations.vscodeText':
    'En {file}; VS Code pide la clave una vez y la guarda en su almacén de secretos.',
  'integrations.vscodeConfig': 'Configuración de VS Code',
  'integrations.cursorText':
    'En {file} (o {project} en un proyecto); la clave sale de {env} en el entorno donde arranca Cursor.',
  'integrations.cursorConfig': 'Configuración de Cursor',
  'integrations.stdioTitle': 'Claude Desktop y otros clientes locales (stdio)',
  'integrations.stdioText':
    '{mcp} conecta la entrada y la salida estándar con el hub usando el inicio de sesión guardado de la línea de comandos svc, así la configuración no contiene ni la clave ni la CA. Inicie sesión en la CLI una vez (pide la clave) y luego añada el servidor (Claude Desktop: {file}).',
  'integrations.svcLogin': 'Comando svc login',
  'integrations.stdioConfig': 'Configuración stdio',
  'integrations.prometheusText':
    'Prometheus encuentra qué recopilar a través del hub (descubrimiento de servicios HTTP): un destino por activo que la clave puede ver, con sus grupos, plataforma y etiquetas como labels.',
  'integrations.scrapeConfig': 'Configuración de scrape de Prometheus',
  'integrations.caFile': '{caFile} es la CA de este hub, descargada como en la sección de asistentes de IA.',
  'integrations.ansibleText':
    '{inventory} es un script de inventario de Ansible: los activos son los hosts (con las variables {host} y {vars}), los grupos del hub son los grupos. Ansible lo ejecuta mediante un envoltorio ejecutable que usa el inicio de sesión guardado de la línea de comandos svc.',
  'integrations.svcLoginAnsible': 'Comando svc login para Ansible',
  'integrations.ansibleCommands': 'Comandos de Ansible',
  'integrations.ansibleDocs': 'Nombres de hosts y grupos, variables y límites: {doc}.',
  'integrations.loading': 'Leyendo el certificado del hub',
  'integrations.intro':
    'Otras herramientas en este hub en {origin}: copie un fragmento y ponga su clave donde se indica.',
  'integrations.noCa':
    'El hub no indicó si su certificado procede de su propia CA, así que estos fragmentos no fijan ninguna.',
};
