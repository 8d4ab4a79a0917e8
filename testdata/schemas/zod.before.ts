{
id: string,
status: "pending" | "shipped",
kind: string,
// Free text for the courier
note: string | null,
shipping: {
    street: string,
    city: string,
    },
billing?: any,
items: {
    sku: string,
    qty: number,
    }[],
discount?: any,
gift?: any,
}
