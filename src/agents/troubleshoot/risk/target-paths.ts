import { normalisePath } from '../validator/linux-paths.ts';

/** What a path holds, for risk: the kinds whose loss or leak costs the most. */
export type PathKind = 'credentials' | 'boot' | 'data' | 'device' | 'system';

const CREDENTIALS: readonly RegExp[] = [
  /^\/etc\/(?:shadow|gshadow|passwd|group|sudoers|security\/opasswd|subuid|subgid)(?:[-+]|$)/,
  /^\/etc\/sudoers\.d(?:\/|$)/,
  /^\/etc\/ssh\/ssh_host_/,
  /^\/etc\/ssl\/private(?:\/|$)/,
  /^\/etc\/(?:kubernetes\/(?:pki|admin\.conf)|pki\/tls\/private)(?:\/|$)/,
  /(?:^|\/)\.ssh(?:\/|$)/,
  /(?:^|\/)(?:authorized_keys2?|id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?)$/,
  /(?:^|\/)\.(?:aws\/credentials|kube\/config|pgpass|netrc|my\.cnf|docker\/config\.json|git-credentials|vault-token)$/,
  /(?:^|\/)\.gnupg(?:\/|$)/,
  /\.(?:pem|key|p12|pfx|jks|keystore)$/,
];
const BOOT: readonly RegExp[] = [
  /^\/boot(?:\/|$)/,
  /^\/etc\/(?:fstab|crypttab|default\/grub|grub\.d|mtab|inittab|initramfs-tools|dracut\.conf)(?:\/|$)/,
  /^\/(?:lib|usr\/lib)\/modules(?:\/|$)/,
  /^\/efi(?:\/|$)/,
];
/** Where databases, queues and container runtimes keep their state. */
const DATA: readonly RegExp[] = [
  /^\/var\/lib\/(?:postgresql|pgsql|mysql|mariadb|mongodb|mongo|redis|etcd|docker|containerd|elasticsearch|opensearch|kafka|zookeeper|cassandra|rabbitmq|influxdb|clickhouse|couchdb|kubelet|libvirt|ceph|minio|prometheus|grafana)(?:\/|$)/,
  /^\/(?:data|srv|mnt\/data)(?:\/|$)/,
];
const WINDOWS_DEVICE = /^\\\\\.\\/;
const DEVICE = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|md|dm-|mapper\/|disk\/|loop|sr|mem$|kmem$|port$)/;
const HARMLESS_DEVICE = /^\/dev\/(?:null|zero|u?random|stdout|stderr|stdin|tty|fd\/\d+|pts\/\d+)$/;
const SYSTEM = /^\/(?:etc|usr|bin|sbin|lib|lib32|lib64|opt|var|root|home|proc\/sys|sys|run\/systemd)(?:\/|$)|^\/$|^~/;

/** True for /dev/null, standard streams and terminals: writing there changes nothing. */
export function isHarmlessSink(path: string): boolean {
  return HARMLESS_DEVICE.test(normalisePath(path));
}

/**
 * The kind of a path (lexically normalised): credentials, boot, data directories and block devices
 * first; then anything else under system directories. Undefined for relative and scratch paths.
 */
export function pathKind(path: string): PathKind | undefined {
  if (WINDOWS_DEVICE.test(path)) return 'device';
  const normal = normalisePath(path);
  if (CREDENTIALS.some((pattern) => pattern.test(normal))) return 'credentials';
  if (HARMLESS_DEVICE.test(normal)) return undefined;
  if (DEVICE.test(normal)) return 'device';
  if (BOOT.some((pattern) => pattern.test(normal))) return 'boot';
  if (DATA.some((pattern) => pattern.test(normal))) return 'data';
  if (SYSTEM.test(normal)) return 'system';
  return undefined;
}

/** Words naming what a kind of path holds, for the reason. */
export const PATH_KIND_NAMES: Readonly<Record<PathKind, string>> = {
  credentials: 'credentials',
  boot: 'boot files',
  data: 'a data directory',
  device: 'a disk device',
  system: 'system files',
};
