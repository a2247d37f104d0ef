/** The merchant directory: which entities a credential may use, and how each entity is configured. */
import type { EntityConfiguration, Merchants } from '../domain/ports.js';
import type { SimulatorConfig } from './options.js';

export function createMerchants(config: Pick<SimulatorConfig, 'credentials' | 'fixtures'>): Merchants {
  const entities = new Map<string, EntityConfiguration>(
    Object.entries(config.fixtures.entities).map(([name, e]) => [name, { currencies: new Set(e.currencies), networks: new Set(e.networks) }]),
  );
  return {
    entityFor: (tenant, entity) => (config.credentials.get(tenant)?.entities.has(entity) ? entities.get(entity) : undefined),
  };
}
