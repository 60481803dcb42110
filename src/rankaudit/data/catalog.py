"""Synthetic e-commerce catalog with listing-style titles.

A product is a combination of *category*, *brand*, *product line* (belongs to the brand), *product
type*, one *attribute* and one *size/variant*, with a price and a latent quality. Titles read like
marketplace
listings::

    Nioxin System 4 Shampoo for Colored Hair, 10.1 oz
    Redken Color Extend Sulfate Free Conditioner, 33.8 oz
    Sony WH-1000XM5 Noise Cancelling Wireless Headphones, Black

Attributes that start with "for"/"with" follow the product type, the others precede it. The
vocabularies below are written compactly, one line per field, ``|``-separated; brands carry their
lines after a colon. This module only builds the catalog; :mod:`rankaudit.data.sessions` simulates
buyers over it.

Public API
----------
``CATEGORY_SPECS``            dict: category name -> :class:`CategorySpec`
``generate_catalog(n_products, *, seed=0, n_categories=None, price_sigma=0.35, quality_sigma=0.8)``
    -> ``pandas.DataFrame`` with columns ``item_id, title, category, brand, line, product_type,
    attribute, size, price, quality`` plus integer codes ``category_code, brand_code, line_code,
    type_code, attribute_code`` (codes are global across categories, so equal code <=> equal value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["CATEGORY_SPECS", "CategorySpec", "generate_catalog"]


@dataclass(frozen=True)
class CategorySpec:
    """Vocabulary of one category.

    ``brands`` maps a brand to its product lines; ``median_price`` is the category's median price in
    USD.
    """

    name: str
    types: tuple[str, ...]
    brands: dict[str, tuple[str, ...]]
    attributes: tuple[str, ...]
    sizes: tuple[str, ...]
    median_price: float


# name ; types ; brands (Brand: line, line | ...) ; attributes ; sizes ; median price
_RAW = """
Hair Care;Shampoo|Conditioner|Hair Mask|Scalp Treatment|Hair Oil;Nioxin: System 4, System 2, Ultra
Clean|Redken: All Soft, Color Extend, Acidic Bonding|Pantene: Pro-V, Gold Series|Olaplex: No. 4, No.
5, No. 7|Moroccanoil: Hydrating, Smoothing|Kerastase: Nutritive, Genesis;for Colored Hair|for
Thinning Hair|Sulfate Free|for Dry Hair|Volumizing|Anti-Dandruff|for Curly Hair;6.8 oz|8.5 oz|10.1
oz|16.9 oz|33.8 oz;22 Skin Care;Moisturizer|Cleanser|Serum|Sunscreen|Eye Cream;CeraVe: Daily, PM,
Hydrating|La Roche-Posay: Toleriane, Anthelios, Effaclar|Neutrogena: Hydro Boost, Ultra Sheer|The
Ordinary: Niacinamide, Hyaluronic Acid|Olay: Regenerist, Total Effects;for Sensitive Skin|Fragrance
Free|SPF 30|SPF 50|Oil Free|for Acne Prone Skin|with Retinol;1 oz|1.7 oz|3 oz|8 oz|16 oz;18
Makeup;Foundation|Mascara|Lipstick|Eyeshadow Palette|Concealer;Maybelline: Fit Me, Sky High,
SuperStay|L'Oreal: True Match, Voluminous, Infallible|MAC: Studio Fix, Retro Matte|NYX: Butter
Gloss, Can't Stop Won't Stop|Fenty Beauty: Pro Filt'r, Gloss Bomb;Waterproof|Matte|Long Wear|Full
Coverage|Shade Light|Shade Medium|Shade Deep;0.1 oz|0.3 oz|1 fl oz;15 Fragrance;Eau de Parfum|Eau de
Toilette|Cologne|Body Mist;Chanel: No. 5, Coco Mademoiselle, Bleu|Dior: Sauvage, J'adore, Miss
Dior|Versace: Eros, Bright Crystal|Calvin Klein: CK One, Eternity|Yves Saint Laurent: Libre, Y;for
Women|for Men|Unisex|Gift Set|Tester;1 oz|1.7 oz|3.4 oz|6.7 oz;80 Headphones;Wireless
Headphones|Earbuds|Gaming Headset|Over-Ear Headphones;Sony: WH-1000XM5, WF-1000XM4, ULT Wear|Bose:
QuietComfort 45, QuietComfort Ultra, SoundLink|Apple: AirPods Pro, AirPods Max|Sennheiser: Momentum
4, HD 560S|JBL: Tune 510BT, Live 660NC|Beats: Studio Pro, Solo 4;Noise Cancelling|Bluetooth|with
Microphone|Open Box|Refurbished|Sport;Black|White|Silver|Midnight Blue;150 Phone Accessories;Phone
Case|Screen Protector|Charging Cable|Wireless Charger|Power Bank;OtterBox: Defender, Commuter,
Symmetry|Spigen: Tough Armor, Ultra Hybrid, Liquid Air|Anker: PowerCore, PowerLine,
PowerWave|Belkin: BoostCharge, InvisiGlass|ESR: HaloLock, Armorite;for iPhone 15|for iPhone 14|for
Galaxy S24|for Pixel 8|MagSafe Compatible|Shockproof;1 Pack|2 Pack|3 ft|6 ft|10000mAh;25
Laptops;Laptop|Chromebook|Gaming Laptop|2-in-1 Laptop;Dell: XPS 13, Inspiron 15, Latitude 7440|HP:
Pavilion 15, Envy x360, Spectre|Lenovo: ThinkPad X1 Carbon, IdeaPad 5, Legion 5|Apple: MacBook Air,
MacBook Pro|ASUS: ZenBook 14, ROG Zephyrus, VivoBook;16GB RAM|8GB RAM|512GB SSD|1TB SSD|Intel Core
i7|Touchscreen|Refurbished;13.3 in|14 in|15.6 in|16 in;900 Cameras;Mirrorless Camera|DSLR
Camera|Camera Lens|Action Camera;Canon: EOS R6, EOS Rebel T7, RF 50mm f/1.8|Nikon: Z6 II, D3500, Z
24-70mm|Sony: Alpha a7 IV, ZV-E10|Fujifilm: X-T5, X100V|GoPro: HERO12, HERO11;Body Only|with Kit
Lens|4K Video|Full Frame|Weather Sealed|Used;Black|Silver;800 Running Shoes;Running Shoes|Trail
Running Shoes|Walking Shoes|Training Shoes;Nike: Pegasus 40, Vomero 17, Invincible 3|Adidas:
Ultraboost Light, Adizero SL|Brooks: Ghost 15, Adrenaline GTS 23, Glycerin 21|Hoka: Clifton 9, Bondi
8, Speedgoat 5|Asics: Gel-Kayano 30, Gel-Nimbus 25, Novablast 4|New Balance: Fresh Foam 1080,
FuelCell Rebel;for Men|for Women|Wide Width|Waterproof|Stability;Size 8|Size 9|Size 10|Size 11|Size
12;130 Watches;Smartwatch|Dive Watch|Chronograph Watch|Fitness Tracker;Apple: Watch Series 9, Watch
Ultra 2, Watch SE|Garmin: Forerunner 265, Fenix 7, Venu 3|Seiko: Prospex, Presage, 5 Sports|Casio:
G-Shock, Edifice|Fitbit: Charge 6, Versa 4;GPS|Automatic|Solar|Stainless Steel|Titanium|for Men|for
Women;40mm|42mm|44mm|45mm|47mm;300 Handbags;Tote Bag|Crossbody Bag|Shoulder
Bag|Backpack|Wallet;Coach: Tabby, Willow, Field Tote|Michael Kors: Jet Set, Mercer|Kate Spade:
Knott, Spencer|Tory Burch: Fleming, Kira|Longchamp: Le Pliage, Roseau;Leather|Pebbled
Leather|Quilted|Nylon|Mini|Large;Black|Brown|Navy|Cream|Red;250 Kitchen Appliances;Blender|Stand
Mixer|Air Fryer|Espresso Machine|Food Processor;Vitamix: 5200, A3500, E310|KitchenAid: Artisan,
Classic, Pro 600|Ninja: Foodi, Professional Plus, Creami|Breville: Barista Express, Bambino
Plus|Cuisinart: Elemental, Custom 14;Stainless Steel|with
Accessories|Refurbished|Digital|Compact|Empire Red;5 qt|6 qt|64 oz|72 oz|1500W;200
Cookware;Skillet|Dutch Oven|Cookware Set|Saucepan|Stock Pot;Le Creuset: Signature, Toughened
Nonstick|Lodge: Cast Iron, Blacklock, Enameled|All-Clad: D3, HA1, D5|Calphalon: Classic,
Premier|T-fal: Ultimate, Experience;Nonstick|Cast Iron|Stainless Steel|Induction Compatible|Oven
Safe|Enameled;8 in|10 in|12 in|5.5 qt|10 Piece;90 Coffee;Whole Bean Coffee|Ground Coffee|K-Cup
Pods|Espresso Beans|Instant Coffee;Starbucks: Pike Place, Veranda Blend, French Roast|Lavazza: Super
Crema, Qualita Oro|Peet's: Major Dickason's, Big Bang|Death Wish: Organic Blend, Espresso
Roast|Dunkin': Original Blend, Midnight;Medium Roast|Dark Roast|Light Roast|Decaf|Organic|Fair
Trade;12 oz|20 oz|2.2 lb|32 Count|72 Count;15 Pet Food;Dry Dog Food|Wet Cat Food|Dry Cat Food|Dog
Treats|Wet Dog Food;Purina: Pro Plan, ONE, Fancy Feast|Blue Buffalo: Life Protection, Wilderness,
Tastefuls|Hill's: Science Diet, Prescription Diet|Royal Canin: Size Health, Breed Health|Orijen:
Original, Six Fish;Grain Free|Chicken Recipe|Salmon Recipe|for Puppies|for Seniors|Indoor|Sensitive
Stomach;4 lb|15 lb|30 lb|12 Count|24 Count;40 Toys;Building Set|Action Figure|Doll|Board Game|Plush
Toy;LEGO: Star Wars, Technic, City, Creator 3in1|Hasbro: Marvel Legends, Monopoly, Nerf
Elite|Mattel: Barbie, Hot Wheels, UNO|Funko: Pop!, Pop! Rides|Melissa & Doug: Wooden, Water Wow;for
Kids 6+|for Ages 3+|Collector Edition|Deluxe|Retired Set|New Sealed;1 Piece|500 Pieces|1000 Pieces|6
Inch|12 Inch;35 Video Games;Video Game|Controller|Console|Charging Dock;PlayStation: PS5, DualSense,
Spider-Man 2|Xbox: Series X, Series S, Elite Series 2|Nintendo: Switch OLED, Switch Lite, Mario Kart
8, Zelda Tears of the Kingdom|Razer: Wolverine V2, Kishi|8BitDo: Pro 2, Ultimate;Digital
Edition|Disc Edition|Bundle|Brand New|Pre-Owned|Limited Edition;1TB|512GB|Standard|Deluxe;60 Power
Tools;Cordless Drill|Impact Driver|Circular Saw|Angle Grinder|Combo Kit;DeWalt: 20V MAX, ATOMIC,
XR|Milwaukee: M18 Fuel, M12|Makita: 18V LXT, XGT 40V|Bosch: 18V, Professional|Ryobi: ONE+, HP
Brushless;Brushless|Tool Only|with Battery|Compact|with Charger|Heavy Duty;1/2 in|1/4 in|7-1/4
in|4-1/2 in;150 Vitamins;Multivitamin|Protein Powder|Fish Oil|Vitamin D3|Probiotic;Optimum
Nutrition: Gold Standard, Serious Mass|Nature Made: Multi for Him, Super B Complex|Garden of Life:
Vitamin Code, Dr. Formulated|Nordic Naturals: Ultimate Omega, Omega-3|Centrum: Silver, Adults;for
Women|for Men|Vegan|Gluten Free|Chocolate|Vanilla|Unflavored;60 Count|120 Count|2 lb|5 lb;30
Camping;Tent|Sleeping Bag|Hiking Backpack|Camping Chair|Headlamp;Coleman: Sundome, WeatherMaster|REI
Co-op: Half Dome, Trail 40|The North Face: Wawona, Eco Trail|Osprey: Atmos AG, Exos, Talon|Black
Diamond: Spot 400, Storm 500;2 Person|4 Person|Waterproof|Ultralight|20
Degree|Rechargeable;Green|Orange|Gray|Blue;120 Golf;Driver|Iron Set|Putter|Golf Balls|Golf
Glove;TaylorMade: Stealth 2, Qi10, TP5|Callaway: Paradym, Rogue ST, Chrome Soft|Titleist: Pro V1,
TSR2, T200|Ping: G430, Anser|Cobra: Aerojet, King;Right Handed|Left Handed|Regular Flex|Stiff
Flex|Used;9 Degree|10.5 Degree|12 Count|Size M|Size L;200 Baby;Diapers|Baby Wipes|Stroller|Car
Seat|Baby Formula;Pampers: Swaddlers, Cruisers, Pure Protection|Huggies: Little Snugglers, Snug &
Dry, Natural Care|Graco: Modes, 4Ever DLX, SnugRide|UPPAbaby: Vista V2, Cruz V2, Minu|Similac: 360
Total Care, Pro-Advance;Newborn|Size 1|Size 3|Size 5|Sensitive|Unscented|Convertible;32 Count|84
Count|168 Count|Black|Gray;45 Bedding;Sheet Set|Comforter|Pillow|Mattress Topper|Duvet
Cover;Brooklinen: Luxe Sateen, Classic Percale|Casper: Original, Hybrid|Tempur-Pedic: TEMPUR-Cloud,
ProAdapt|Parachute: Linen, Percale|Mellanni: Microfiber,
Cooling;Cotton|Cooling|Hypoallergenic|Memory Foam|Down Alternative|400 Thread
Count;Twin|Full|Queen|King|California King;110 Clothing;Jeans|T-Shirt|Hoodie|Jacket;Levi's: 501
Original, 511 Slim, 505 Regular|Carhartt: WIP, Rugged Flex, Loose Fit|Patagonia: Better Sweater,
Nano Puff, Torrentshell|Champion: Reverse Weave, Powerblend|Wrangler: Cowboy Cut, Authentics;for
Men|for Women|Slim Fit|Relaxed Fit|Stretch|Organic Cotton|Water Resistant;Size S|Size M|Size L|Size
XL|32x32|34x32;60
"""


def _parse_specs(raw: str) -> dict[str, CategorySpec]:
    specs: dict[str, CategorySpec] = {}
    for line_no, line in enumerate(raw.strip().splitlines(), start=1):
        fields = line.split(";")
        if len(fields) != 6:
            raise ValueError(
                f"catalog vocabulary line {line_no}: expected 6 ';' fields, got {len(fields)}"
            )
        name, types, brands, attrs, sizes, price = fields
        brand_map = {}
        for entry in brands.split("|"):
            brand, lines = entry.split(":", 1)
            brand_map[brand.strip()] = tuple(x.strip() for x in lines.split(","))
        specs[name] = CategorySpec(
            name=name,
            types=tuple(types.split("|")),
            brands=brand_map,
            attributes=tuple(attrs.split("|")),
            sizes=tuple(sizes.split("|")),
            median_price=float(price),
        )
    return specs


CATEGORY_SPECS: dict[str, CategorySpec] = _parse_specs(_RAW)


def _title(brand: str, line: str, ptype: str, attribute: str, size: str) -> str:
    # never repeat words the line already says: "Toughened Nonstick" + "Nonstick" -> "Toughened
    # Nonstick Skillet"; "511 Slim" + "Slim Fit" -> "511 Slim Fit Jeans"
    if f" {attribute.lower()} " in f" {line.lower()} ":
        return f"{brand} {line} {ptype}, {size}"
    line_words, attr_words = line.lower().split(), attribute.split()
    for n in range(min(len(line_words), len(attr_words)), 0, -1):
        if line_words[-n:] == [w.lower() for w in attr_words[:n]]:
            return f"{brand} {line} {' '.join(attr_words[n:])} {ptype}, {size}"
    if attribute.startswith(("for ", "with ")):
        return f"{brand} {line} {ptype} {attribute}, {size}"
    return f"{brand} {line} {attribute} {ptype}, {size}"


def generate_catalog(
    n_products: int,
    *,
    seed: int = 0,
    n_categories: int | None = None,
    price_sigma: float = 0.35,
    quality_sigma: float = 0.8,
    category_zipf: float = 0.6,
) -> pd.DataFrame:
    """Draw ``n_products`` distinct products (no two share brand, line, type, attribute and size).

    Category shares follow a Zipf law with exponent ``category_zipf``; within a category, brand
    shares follow Zipf(1) so a few brands dominate, as on real marketplaces. Price is
    ``median_price * exp(0.25 * z_brand + 0.15 * size_rank + N(0, price_sigma))``; quality (a latent
    popularity the production engine knows) is ``N(0, quality_sigma)``.
    """
    if n_products < 1:
        raise ValueError(f"n_products must be >= 1, got {n_products}")
    names = list(CATEGORY_SPECS)
    if n_categories is None:
        n_categories = len(names)
    if not 1 <= n_categories <= len(names):
        raise ValueError(f"n_categories must be in [1, {len(names)}], got {n_categories}")
    rng = np.random.default_rng(seed)
    names = names[:n_categories]

    # enumerate all combinations per category once (small: a few thousand per category)
    rows: list[tuple] = []
    weights: list[float] = []
    cat_w = 1.0 / np.arange(1, n_categories + 1) ** category_zipf
    cat_w = cat_w / cat_w.sum()
    for ci, name in enumerate(names):
        spec = CATEGORY_SPECS[name]
        combos = []
        w = []
        for bi, (brand, lines) in enumerate(spec.brands.items()):
            for line in lines:
                for ptype in spec.types:
                    for si, size in enumerate(spec.sizes):
                        for attr in spec.attributes:
                            combos.append((name, brand, line, ptype, attr, size, si, bi))
                            w.append(1.0 / (bi + 1))
        w = np.asarray(w)
        rows.extend(combos)
        weights.extend(cat_w[ci] * w / w.sum())
    weights_arr = np.asarray(weights)
    if n_products > len(rows):
        raise ValueError(
            f"n_products={n_products} exceeds the {len(rows)} distinct products of the vocabulary"
        )
    pick = rng.choice(len(rows), size=n_products, replace=False, p=weights_arr / weights_arr.sum())
    pick.sort()
    chosen = [rows[i] for i in pick]
    df = pd.DataFrame(
        chosen,
        columns=[
            "category",
            "brand",
            "line",
            "product_type",
            "attribute",
            "size",
            "size_rank",
            "brand_rank",
        ],
    )
    brand_z = {
        b: z
        for b, z in zip(
            sorted(df.brand.unique()), rng.normal(0, 1, df.brand.nunique()), strict=True
        )
    }
    median = df.category.map(lambda c: CATEGORY_SPECS[c].median_price).to_numpy()
    size_rel = df.groupby("category").size_rank.transform(
        lambda s: (s - s.mean()) / max(s.std(ddof=0), 1.0)
    )
    price = median * np.exp(
        0.25 * df.brand.map(brand_z).to_numpy()
        + 0.15 * size_rel.to_numpy()
        + rng.normal(0, price_sigma, len(df))
    )
    df["price"] = np.round(price, 2).clip(0.99, None)
    df["quality"] = rng.normal(0.0, quality_sigma, len(df))
    df["title"] = [
        _title(b, li, t, a, s)
        for b, li, t, a, s in zip(
            df.brand, df.line, df.product_type, df.attribute, df["size"], strict=True
        )
    ]
    df.insert(0, "item_id", np.arange(len(df), dtype=np.int64))
    # global integer codes (brand code keyed on (category, brand): "Sony" headphones != "Sony"
    # cameras line-wise)
    df["category_code"] = pd.Categorical(df.category, categories=names).codes.astype(np.int32)
    df["brand_code"] = pd.factorize(df.category + "|" + df.brand, sort=True)[0].astype(np.int32)
    df["line_code"] = pd.factorize(df.category + "|" + df.brand + "|" + df.line, sort=True)[
        0
    ].astype(np.int32)
    df["type_code"] = pd.factorize(df.category + "|" + df.product_type, sort=True)[0].astype(
        np.int32
    )
    df["attribute_code"] = pd.factorize(df.category + "|" + df.attribute, sort=True)[0].astype(
        np.int32
    )
    cols = [
        "item_id",
        "title",
        "category",
        "brand",
        "line",
        "product_type",
        "attribute",
        "size",
        "price",
        "quality",
        "category_code",
        "brand_code",
        "line_code",
        "type_code",
        "attribute_code",
    ]
    return df[cols]
