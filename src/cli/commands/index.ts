import type { CliCommand } from '../command.ts';
import { accessServiceCommand } from './access-service.ts';
import { approvalsCommand } from './approvals.ts';
import { auditCommand } from './audit.ts';
import { chatCommand } from './chat.ts';
import { checkCommand } from './check-command.ts';
import { checkSqlCommand } from './check-sql.ts';
import { gatewayCommand } from './gateway.ts';
import { helmClustersCommand } from './helm-clusters.ts';
import { hostsCommand } from './hosts.ts';
import { mcpCommand } from './mcp.ts';
import { mcpServerCommand } from './mcp-server.ts';
import { policyCommand } from './policy.ts';
import { serveCommand } from './serve.ts';
import { sessionsCommand } from './sessions.ts';
import { usersCommand } from './users.ts';

/** Every verb of the CLI, in the order `opsgate --help` lists them. One line per command. */
export const commands: readonly CliCommand[] = [
  serveCommand,
  usersCommand,
  chatCommand,
  sessionsCommand,
  approvalsCommand,
  auditCommand,
  checkCommand,
  checkSqlCommand,
  mcpCommand,
  mcpServerCommand,
  gatewayCommand,
  accessServiceCommand,
  hostsCommand,
  helmClustersCommand,
  policyCommand,
];
