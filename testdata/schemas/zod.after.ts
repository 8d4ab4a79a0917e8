{
id: string,
status: "pending" | "shipped",
kind: "order",
// Free text for the courier
note: string | null,
shipping: {
    street: string,
    city: string,
    },
billing?: {
    street: string,
    city: string,
    },
items: {
    sku: string,
    qty: number,
    }[],
discount?:
 | {
   percent: number,
   }
 | {
   amount: number,
   }
,
gift?: {
    to: string,
    message?: string,
    },
}
