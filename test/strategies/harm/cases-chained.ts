/**
 * Chained traces whose root cause sits after many earlier failure lines: Java's and Maven's
 * `Caused by`, Python's `raise from` and "During handling", anyhow's cause list, Node's error
 * cause, .NET's inner exception, a test run's last root cause.
 */
import { bash, type HarmCase } from './case.js';
import { pyFrames } from './cases-traces.js';
import { noise, text } from './noise.js';

export const chainedCases: HarmCase[] = [
  {
    name: 'java Caused by at the end after many ERROR retry lines',
    klass: 'chained',
    ...bash('./gradlew bootRun'),
    output: text(
      Array.from(
        { length: 30 },
        (_, i) =>
          `2024-05-02T10:31:${String(i).padStart(2, '0')}.120Z ERROR 7 --- [main] c.z.h.pool.HikariPool : HikariPool-1 - Exception during pool initialization (attempt ${i + 1})`,
      ),
      "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'entityManagerFactory'",
      '\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.initializeBean(AbstractAutowireCapableBeanFactory.java:1786)',
      Array.from(
        { length: 20 },
        (_, i) => `\tat org.springframework.boot.SpringApplication.run${i}(SpringApplication.java:${300 + i})`,
      ),
      'Caused by: org.hibernate.service.spi.ServiceException: Unable to create requested service [org.hibernate.engine.jdbc.env.spi.JdbcEnvironment]',
      Array.from(
        { length: 10 },
        (_, i) =>
          `\tat org.hibernate.service.internal.AbstractServiceRegistryImpl.createService${i}(AbstractServiceRegistryImpl.java:${270 + i})`,
      ),
      'Caused by: org.postgresql.util.PSQLException: FATAL: password authentication failed for user "shop_rw"',
      '\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:693)',
      '\t... 45 more',
      '',
      Array.from({ length: 15 }, (_, i) => `> Task :app:shutdownHook${i}`),
    ),
    keep: ['password authentication failed for user "shop_rw"'],
  },
  {
    name: 'python raise from: both causes survive many failing lines',
    klass: 'chained',
    ...bash('celery -A shop worker --loglevel=INFO 2>&1 | tail -150'),
    output: text(
      Array.from(
        { length: 30 },
        (_, i) =>
          `[2024-05-02 10:31:${String(i).padStart(2, '0')},000: ERROR/ForkPoolWorker-${i % 4}] Task shop.tasks.sync[${i}] raised unexpected: ConnectionError()`,
      ),
      'Traceback (most recent call last):',
      pyFrames(3, '/app/shop/clients/erp.py'),
      'socket.gaierror: [Errno -3] Temporary failure in name resolution',
      '',
      'The above exception was the direct cause of the following exception:',
      '',
      'Traceback (most recent call last):',
      pyFrames(3, '/app/shop/tasks.py'),
      'shop.clients.erp.ErpUnavailable: erp.internal.example:8443 unreachable',
      Array.from(
        { length: 15 },
        (_, i) => `[2024-05-02 10:32:${String(i).padStart(2, '0')},000: INFO/MainProcess] heartbeat ${i}`,
      ),
    ),
    keep: ['Temporary failure in name resolution', 'ErpUnavailable: erp.internal.example:8443 unreachable'],
  },
  {
    name: 'python During handling: both exceptions survive',
    klass: 'chained',
    ...bash('python -m app.migrate'),
    output: text(
      noise.appLog(25, 49),
      'Traceback (most recent call last):',
      pyFrames(4, '/app/app/migrate.py'),
      "KeyError: 'tenant_id'",
      '',
      'During handling of the above exception, another exception occurred:',
      '',
      'Traceback (most recent call last):',
      pyFrames(4, '/app/app/migrate.py'),
      'app.errors.MigrationAborted: migration 0042 rolled back, 1,204 rows untouched',
      noise.appLog(30, 50),
    ),
    keep: ["KeyError: 'tenant_id'", 'migration 0042 rolled back, 1,204 rows untouched'],
  },
  {
    name: 'maven surefire trace with nested Caused by and ... more',
    klass: 'chained',
    ...bash('mvn test -Dtest=OrderServiceIT'),
    output: text(
      noise.mavenInfo(20, 51),
      '[ERROR] Tests run: 4, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 3.2 s <<< FAILURE! -- in com.shop.OrderServiceIT',
      '[ERROR] com.shop.OrderServiceIT.placesOrder -- Time elapsed: 1.1 s <<< ERROR!',
      'org.springframework.dao.DataIntegrityViolationException: could not execute statement',
      Array.from({ length: 25 }, (_, i) => `\tat com.shop.OrderService.place${i}(OrderService.java:${40 + i})`),
      'Caused by: org.hibernate.exception.ConstraintViolationException: could not execute statement',
      Array.from(
        { length: 10 },
        (_, i) =>
          `\tat org.hibernate.exception.internal.SQLStateConversionDelegate.convert${i}(SQLStateConversionDelegate.java:${95 + i})`,
      ),
      'Caused by: org.postgresql.util.PSQLException: ERROR: null value in column "currency" of relation "orders" violates not-null constraint',
      '  Detail: Failing row contains (17, 42, null, 19.99).',
      '\t... 38 more',
      '',
      noise.mavenInfo(20, 52),
    ),
    keep: ['null value in column "currency"', 'Failing row contains (17, 42, null, 19.99).'],
  },
  {
    name: 'anyhow Caused by list without failure words',
    klass: 'chained',
    ...bash('cargo run --bin sync -- --config prod.toml'),
    output: text(
      noise.cargoCompiling(30, 53),
      '    Finished `dev` profile [unoptimized + debuginfo] target(s) in 12.71s',
      '     Running `target/debug/sync --config prod.toml`',
      noise.appLog(20, 54),
      'Error: loading configuration',
      '',
      'Caused by:',
      '    0: reading /etc/shop/prod.toml',
      '    1: expected an equals, found a newline at line 14 column 9',
      noise.appLog(25, 55),
    ),
    keep: ['reading /etc/shop/prod.toml', 'expected an equals, found a newline at line 14 column 9'],
  },
  {
    name: 'node error cause survives',
    klass: 'chained',
    ...bash('node scripts/seed.mjs'),
    output: text(
      noise.appLog(30, 56),
      'file:///app/scripts/seed.mjs:22',
      "  throw new Error('seeding failed', { cause: err });",
      '        ^',
      '',
      'Error: seeding failed',
      '    at file:///app/scripts/seed.mjs:22:9',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5) {',
      '  [cause]: Error: connect ECONNREFUSED 10.0.4.12:5432',
      '      at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16) {',
      '    errno: -111,',
      "    code: 'ECONNREFUSED',",
      "    address: '10.0.4.12',",
      '    port: 5432',
      '  }',
      '}',
      noise.appLog(30, 57),
    ),
    keep: ['connect ECONNREFUSED 10.0.4.12:5432'],
  },
  {
    name: '.NET inner exception arrow',
    klass: 'chained',
    ...bash('dotnet run --project src/Api'),
    output: text(
      noise.appLog(30, 58),
      'Unhandled exception. System.AggregateException: One or more errors occurred. (A task was canceled.)',
      ' ---> System.Threading.Tasks.TaskCanceledException: A task was canceled.',
      ' ---> System.TimeoutException: The operation was canceled because the upstream inventory-svc did not answer within 00:00:30.',
      '   --- End of inner exception stack trace ---',
      Array.from(
        { length: 12 },
        (_, i) => `   at Api.Inventory.Client.Get${i}() in /src/Api/Inventory/Client.cs:line ${30 + i}`,
      ),
      noise.appLog(25, 59),
    ),
    keep: ['upstream inventory-svc did not answer within 00:00:30'],
  },
  {
    name: 'twenty failing tests then the root cause of the last one',
    klass: 'chained',
    ...bash('pytest tests/integration -q'),
    output: text(
      Array.from(
        { length: 26 },
        (_, i) =>
          `FAILED tests/integration/test_api.py::test_endpoint_${i} - requests.exceptions.ConnectionError: ('Connection aborted.', RemoteDisconnected())`,
      ),
      '________________________ test_bootstrap ________________________',
      'Traceback (most recent call last):',
      pyFrames(3, '/repo/tests/integration/conftest.py'),
      "OSError: [Errno 98] Address already in use: ('127.0.0.1', 8089)",
      '',
      'The above exception was the direct cause of the following exception:',
      '',
      pyFrames(3, '/repo/tests/integration/conftest.py'),
      'tests.integration.conftest.ServerBootFailed: mock server could not bind port 8089',
      Array.from({ length: 12 }, (_, i) => `teardown: container ${i} removed`),
      '========================= 26 failed, 3 passed in 41.20s =========================',
    ),
    keep: ['Address already in use', 'mock server could not bind port 8089', '26 failed, 3 passed'],
  },
];
