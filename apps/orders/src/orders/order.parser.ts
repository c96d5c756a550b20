import { isPlainObject, isPositiveInteger, StoredRecordReader } from '@durable-timeout/sample-app-support';
import { ORDER_STATUSES, TRANSITION_CAUSES, type OrderItem, type OrderView } from './order.model.js';

/**
 * Turns what Redis holds for an order (its hash and its transitions list) into the API view.
 * Everything stored is parsed defensively: a field of the wrong shape throws `CorruptRecordError`.
 */
export function parseOrder(id: string, fields: Record<string, string>, transitions: readonly string[]): OrderView {
  const stored = new StoredRecordReader('order', id, ORDER_STATUSES);
  const details = stored.object(fields['details'], 'details');
  const lines = details['items'];
  if (!Array.isArray(lines) || !isPositiveInteger(details['amountCents'])) throw stored.corrupt('details has no items or amountCents');
  const items: OrderItem[] = lines.map((item: unknown) => {
    if (!isPlainObject(item) || typeof item['sku'] !== 'string' || !isPositiveInteger(item['qty'])) throw stored.corrupt('bad item');
    return { sku: item['sku'], qty: item['qty'] };
  });
  const view: OrderView = {
    id,
    status: stored.status(fields['status']),
    createdAt: stored.time(fields['createdAt'], 'createdAt'),
    paymentDueAt: stored.time(fields['paymentDueAt'], 'paymentDueAt'),
    updatedAt: stored.time(fields['updatedAt'], 'updatedAt'),
    items,
    amountCents: details['amountCents'],
    transitions: stored.transitions(transitions, TRANSITION_CAUSES),
  };
  if (typeof details['customerId'] === 'string') view.customerId = details['customerId'];
  return view;
}
