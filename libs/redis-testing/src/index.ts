export { portTaken, RedisServer, type RedisServerOptions, type RedisTlsFiles } from './redis-server.js';
export { RedisCluster, type RedisClusterOptions } from './redis-cluster.js';
export { RedisSentinelGroup, SentinelProcess, type RedisSentinelGroupOptions } from './redis-sentinel.js';
export { LaggingProxy, type LaggingProxyOptions } from './lagging-proxy.js';
export { freePort } from './free-port.js';
export { redisServerBinary, redisCliBinary, redisSentinelCommand } from './binary.js';
export { HarnessError, type HarnessFailure } from './harness-error.js';
export { waitFor, waitUntil } from './wait.js';
export { monitorCommands, parseArgs, type CommandMonitor, type MonitoredCommand } from './monitor.js';
