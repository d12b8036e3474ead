// @ts-check

export const products = [
  { id: 1, name: 'Kettle', price: 3900, category: 'kitchen' },
  { id: 2, name: 'Mug', price: 900, category: 'kitchen' },
  { id: 3, name: 'Lamp', price: 4900, category: 'living' },
  { id: 4, name: 'Rug', price: 12900, category: 'living' },
  { id: 5, name: 'Pan', price: 3900, category: 'kitchen' },
  { id: 6, name: 'Vase', price: 1900, category: 'living' },
  { id: 7, name: 'Toaster', price: 3900, category: 'kitchen' },
];

export const resource = { sortable: ['id', 'price', 'name'], filterable: ['category'], defaultSort: 'id' };
